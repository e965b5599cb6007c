import { apnsToken, bearer, newInstallation } from '../support/factories';
import { useTenantWithProviders } from '../support/use-tenant-with-providers';
import { waitFor } from '../support/wait-for';
import { useAppWithFakeProviders } from '../support/use-app-with-fake-providers';

/** Localized content (docs/api.md#localization): validation, the size check of every variant, and which device gets which. */
describe('localized content (docs/api.md#localization)', () => {
  const stack = useAppWithFakeProviders();
  const { ctx } = stack;
  const tenant = useTenantWithProviders(stack, 'Localized');

  const send = (notification: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
    ctx
      .http()
      .post('/api/v1/notifications')
      .set(bearer(tenant.token))
      .send({ recipients: { user_ids: ['someone'] }, notification: { title: 'Hello', body: 'World', ...notification }, ...extra });
  const read = async (id: string) => (await ctx.http().get(`/api/v1/notifications/${id}`).set(bearer(tenant.token)).expect(200)).body.data;

  it('echoes the variants in request order; null when absent', async () => {
    const localizations = {
      'pt-BR': { title: 'Olá' },
      fr: { body: 'Le monde', image_url: 'https://cdn.example.com/fr.png' },
      de: { action_url: 'myapp://de' },
    };
    const res = await send({ localizations });
    expect(res.status).toBe(202);
    expect(res.body.data.notification.localizations).toEqual(localizations);
    const read1 = await read(res.body.data.id);
    expect(Object.keys(read1.notification.localizations)).toEqual(['pt-BR', 'fr', 'de']);
    expect((await send({})).body.data.notification.localizations).toBeNull();
    expect((await send({ localizations: null })).body.data.notification.localizations).toBeNull();
  });

  const fiftyOne = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`l${String(i).padStart(2, '0')}`, { title: 'x' }]));
  it.each<[string, unknown, string, string]>([
    ['not an object', ['fr'], 'notification.localizations', 'The notification.localizations field must be an object.'],
    ['51 keys', fiftyOne, 'notification.localizations', 'The notification.localizations field must not have more than 50 keys.'],
    [
      'a one-letter key',
      { f: { title: 'x' } },
      'notification.localizations.f',
      'The notification.localizations.f field name must be a BCP 47 language tag (2 to 35 letters, digits and -).',
    ],
    [
      'a key with _',
      { pt_BR: { title: 'x' } },
      'notification.localizations.pt_BR',
      'The notification.localizations.pt_BR field name must be a BCP 47 language tag (2 to 35 letters, digits and -).',
    ],
    [
      'a 36-char key',
      { ['a'.repeat(36)]: { title: 'x' } },
      `notification.localizations.${'a'.repeat(36)}`,
      `The notification.localizations.${'a'.repeat(36)} field name must be a BCP 47 language tag (2 to 35 letters, digits and -).`,
    ],
    ['a value that is not an object', { fr: 'Bonjour' }, 'notification.localizations.fr', 'The notification.localizations.fr field must be an object.'],
    [
      'an empty variant',
      { fr: {} },
      'notification.localizations.fr',
      'The notification.localizations.fr field must contain at least one of title, body, image_url, action_url.',
    ],
    [
      'an unknown field',
      { fr: { title: 'x', subtitle: 'y' } },
      'notification.localizations.fr.subtitle',
      'The notification.localizations.fr.subtitle field is not allowed.',
    ],
    ['an empty title', { fr: { title: '' } }, 'notification.localizations.fr.title', 'The notification.localizations.fr.title field must not be empty.'],
    [
      'a 257-char title',
      { fr: { title: 't'.repeat(257) } },
      'notification.localizations.fr.title',
      'The notification.localizations.fr.title field must not be greater than 256 characters.',
    ],
    [
      'a 4,001-char body',
      { fr: { body: 'b'.repeat(4001) } },
      'notification.localizations.fr.body',
      'The notification.localizations.fr.body field must not be greater than 4000 characters.',
    ],
    ['a null body', { fr: { body: null } }, 'notification.localizations.fr.body', 'The notification.localizations.fr.body field must be a string.'],
    [
      'an http image_url',
      { fr: { image_url: 'http://cdn.example.com/a.png' } },
      'notification.localizations.fr.image_url',
      'The notification.localizations.fr.image_url field must be an absolute https:// URL.',
    ],
    [
      'a relative action_url',
      { fr: { action_url: 'orders/42' } },
      'notification.localizations.fr.action_url',
      'The notification.localizations.fr.action_url field must be an absolute URL or an app deep link (scheme://...).',
    ],
  ])('422 for localizations with %s', async (_name, localizations, field, message) => {
    const res = await send({ localizations });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual({ [field]: [message] });
  });

  it('accepts 50 keys of 2 to 35 characters', async () => {
    const fifty = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [i === 0 ? 'a'.repeat(35) : `l${String(i).padStart(2, '0')}`, { title: 'x' }]));
    expect((await send({ localizations: { ...fifty } })).status).toBe(202);
    expect((await send({ localizations: { 'zh-Hant-TW': { title: '你好' }, pt: { body: 'Olá' } } })).status).toBe(202);
  });

  it('checks the payload size of every variant (422 at the variant that does not fit)', async () => {
    const res = await send({ body: 'short', localizations: { fr: { body: 'court' }, de: { body: 'l'.repeat(4000) } } }, { options: { platforms: ['ios'] } });
    expect(res.status).toBe(422);
    expect(Object.keys(res.body.errors)).toEqual(['notification.localizations.de']);
    expect(res.body.errors['notification.localizations.de'][0]).toMatch(
      /^The notification is too large for APNs: its payload would be \d+ bytes, the limit is 4096\.$/,
    );
  });

  it('each device gets the best match for its locale: exact, language-only, same language, or the defaults', async () => {
    const devices: Record<string, string | null> = {
      exact: 'pt_br',
      language: 'fr-CA',
      sameLanguage: 'es-ES',
      none: 'de-DE',
      missing: null,
    };
    const tokens: Record<string, string> = {};
    for (const [name, locale] of Object.entries(devices)) {
      tokens[name] = apnsToken();
      await newInstallation(ctx, tenant.token, { platform: 'ios', push_token: tokens[name], user_id: 'polyglot', device: { locale } });
    }
    const res = await ctx
      .http()
      .post('/api/v1/notifications')
      .set(bearer(tenant.token))
      .send({
        recipients: { user_ids: ['polyglot'] },
        notification: {
          title: 'Shipped',
          body: 'On its way',
          image_url: 'https://cdn.example.com/box.png',
          localizations: {
            pt: { title: 'Enviado (pt)' },
            'pt-BR': { title: 'Enviado', body: 'A caminho' },
            fr: { title: 'Expédiée', action_url: 'myapp://fr' },
            'es-MX': { title: 'Enviado (MX)' },
            'es-AR': { title: 'Enviado (AR)' },
          },
        },
      });
    expect(res.status).toBe(202);
    await waitFor(async () => (await read(res.body.data.id)).completed_at, 'the send to complete');
    const alertOf = (name: string) => {
      const payload = stack.fakes.apns.requests.find((r) => r.token === tokens[name])!.payload as {
        aps: { alert: unknown };
        action_url?: string;
        image_url?: string;
      };
      return { ...(payload.aps.alert as object), action_url: payload.action_url ?? null, image_url: payload.image_url ?? null };
    };
    const image = 'https://cdn.example.com/box.png';
    expect(alertOf('exact')).toEqual({ title: 'Enviado', body: 'A caminho', action_url: null, image_url: image });
    expect(alertOf('language')).toEqual({ title: 'Expédiée', body: 'On its way', action_url: 'myapp://fr', image_url: image });
    expect(alertOf('sameLanguage')).toEqual({ title: 'Enviado (MX)', body: 'On its way', action_url: null, image_url: image });
    expect(alertOf('none')).toEqual({ title: 'Shipped', body: 'On its way', action_url: null, image_url: image });
    expect(alertOf('missing')).toEqual({ title: 'Shipped', body: 'On its way', action_url: null, image_url: image });
  });
});
