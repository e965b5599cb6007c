import { randomUUID } from 'node:crypto';
import { bearer, newInstallation } from '../support/factories';
import { notificationCompleted } from '../support/notifications';
import { useAppWithFakeProviders } from '../support/use-app-with-fake-providers';
import { useTenantWithProviders } from '../support/use-tenant-with-providers';

/**
 * Declarative Web Push (docs/api.md#declarative-web-push, contract 28): `options.web.declarative`
 * sends web installations the declarative payload, which the fake push service decrypts; other
 * providers keep their own payloads.
 */
describe('Declarative Web Push (docs/api.md#declarative-web-push)', () => {
  const stack = useAppWithFakeProviders();
  const { ctx } = stack;
  const tenant = useTenantWithProviders(stack, 'Declarative');
  beforeEach(() => stack.fakes.web.reset());

  const send = (body: Record<string, unknown>) => ctx.http().post('/api/v1/notifications').set(bearer(tenant.token)).send(body);
  const browser = (user: string) =>
    newInstallation(ctx, tenant.token, { platform: 'web', push_token: undefined, web_push_subscription: stack.fakes.web.createSubscription(), user_id: user });

  it('refuses a declarative send without an action_url (422)', async () => {
    const res = await send({ recipients: { all: true }, notification: { title: 'Hi', body: 'There' }, options: { web: { declarative: true } } });
    expect([res.status, res.body.errors]).toEqual([
      422,
      { 'notification.action_url': ['The notification.action_url field is required when options.web.declarative is true.'] },
    ]);
    const wrongType = await send({
      recipients: { all: true },
      notification: { title: 'Hi', body: 'There', action_url: 'https://shop.example/' },
      options: { web: { declarative: 'yes' } },
    });
    expect(wrongType.status).toBe(422);
    expect(Object.keys(wrongType.body.errors)).toEqual(['options.web.declarative']);
  });

  it('sends web installations {"web_push": 8030, "notification": {title, body, navigate, silent, app_badge, data}, "mutable": false}; iOS keeps APNs', async () => {
    const user = `decl-${randomUUID()}`;
    await browser(user);
    await newInstallation(ctx, tenant.token, { user_id: user });
    const res = await send({
      recipients: { user_ids: [user] },
      notification: { title: 'Sale', body: 'Today only', action_url: 'https://shop.example/sale' },
      data: { campaign: 'c1' },
      options: { badge: 3, web: { declarative: true, silent: true } },
    });
    expect(res.status).toBe(202);
    const done = await notificationCompleted(ctx, tenant.token, res.body.data.id);
    expect(done.statistics).toMatchObject({ installations: 2, accepted: 2 });
    const [request] = stack.fakes.web.requests;
    expect(request.status).toBe(201);
    expect(JSON.parse(request.text!)).toEqual({
      web_push: 8030,
      notification: {
        title: 'Sale',
        body: 'Today only',
        navigate: 'https://shop.example/sale',
        silent: true,
        app_badge: 3,
        data: { notification_id: done.id, data: { campaign: 'c1' } },
      },
      mutable: false,
    });
    const apns = stack.fakes.apns.requests.find((r) => (r.payload as { notification_id?: string }).notification_id === done.id);
    expect(apns?.payload).toMatchObject({ aps: { alert: { title: 'Sale', body: 'Today only' }, badge: 3 }, action_url: 'https://shop.example/sale' });
  });

  it("carries the localization's language tag as lang, with its own navigate", async () => {
    const user = `decl-${randomUUID()}`;
    const made = await browser(user);
    await ctx
      .http()
      .patch(`/api/v1/installations/${made.installation_id}`)
      .set(bearer(tenant.token))
      .send({ device: { locale: 'fr-FR' } })
      .expect(200);
    const res = await send({
      recipients: { user_ids: [user] },
      notification: {
        title: 'Sale',
        body: 'Today only',
        action_url: 'https://shop.example/sale',
        localizations: { fr: { title: 'Soldes', body: "Aujourd'hui", action_url: 'https://shop.example/fr/soldes' } },
      },
      options: { web: { declarative: true } },
    });
    expect(res.status).toBe(202);
    await notificationCompleted(ctx, tenant.token, res.body.data.id);
    expect(JSON.parse(stack.fakes.web.requests[0].text!)).toEqual({
      web_push: 8030,
      notification: {
        title: 'Soldes',
        body: "Aujourd'hui",
        navigate: 'https://shop.example/fr/soldes',
        lang: 'fr',
        data: { notification_id: res.body.data.id },
      },
      mutable: false,
    });
  });
});
