import { apnsToken, bearer, newApp, newInstallation, newToken } from '../support/factories';
import { waitFor } from '../support/wait-for';
import { useAppWithFakeProviders } from '../support/use-app-with-fake-providers';
import { useTenantWithProviders } from '../support/use-tenant-with-providers';

const FORBIDDEN = { message: 'This action is unauthorized.' };

/** Contract 26 (docs/api.md#templates): the templates resource, its versions and who may call. */
describe('templates', () => {
  const stack = useAppWithFakeProviders();
  const { ctx } = stack;
  const tenant = useTenantWithProviders(stack, 'Templates');
  let writer: string;

  beforeAll(async () => {
    writer = await newToken(ctx, tenant.appId, ['templates:write']);
  });

  const putTemplate = (key: string, body: Record<string, unknown>, token = writer) => ctx.http().put(`/api/v1/templates/${key}`).set(bearer(token)).send(body);
  const shipped = {
    name: 'Order shipped',
    notification: { title: 'Hi {{ vars.first_name | default: "there" }}', body: 'Order {{ vars.order_id }} is on its way' },
    localizations: { fr: { title: 'Bonjour {{ vars.first_name }}' } },
    data: { kind: 'shipping' },
  };

  it('creates version 1 (201), makes a new version on a change (200), keeps each version, and deletes them all', async () => {
    const created = await putTemplate('order_shipped', shipped).expect(201);
    expect(created.body.data).toEqual({
      key: 'order_shipped',
      name: 'Order shipped',
      notification: { ...shipped.notification, image_url: null, action_url: null },
      localizations: shipped.localizations,
      data: shipped.data,
      version: 1,
      created_at: expect.stringMatching(/Z$/),
      updated_at: created.body.data.created_at,
    });
    // The same content again is no change.
    expect((await putTemplate('order_shipped', shipped).expect(200)).body.data).toEqual(created.body.data);
    const changed = await putTemplate('order_shipped', { ...shipped, notification: { title: 'Shipped', body: 'On its way' }, localizations: null }).expect(200);
    expect(changed.body.data).toMatchObject({ version: 2, localizations: null, created_at: created.body.data.created_at });

    const reader = await newToken(ctx, tenant.appId, ['notifications:send']);
    expect((await ctx.http().get('/api/v1/templates/order_shipped').set(bearer(reader)).expect(200)).body.data).toEqual(changed.body.data);
    expect((await ctx.http().get('/api/v1/templates/order_shipped/versions/1').set(bearer(reader)).expect(200)).body.data).toEqual(created.body.data);
    await ctx.http().get('/api/v1/templates/order_shipped/versions/3').set(bearer(reader)).expect(404);
    await ctx.http().get('/api/v1/templates/order_shipped/versions/x').set(bearer(reader)).expect(404);
    expect((await ctx.http().get('/api/v1/templates').set(bearer(reader)).expect(200)).body).toEqual({
      data: [changed.body.data],
      meta: { next_cursor: null },
    });

    const other = await newApp(ctx, 'Other');
    await ctx.http().get('/api/v1/templates/order_shipped').set(bearer(other.token)).expect(404);
    expect((await ctx.http().get('/api/v1/templates').set(bearer(other.token)).expect(200)).body.data).toEqual([]);

    await ctx.http().delete('/api/v1/templates/order_shipped').set(bearer(reader)).expect(403, FORBIDDEN);
    await ctx.http().delete('/api/v1/templates/order_shipped').set(bearer(writer)).expect(204);
    await ctx.http().get('/api/v1/templates/order_shipped/versions/1').set(bearer(writer)).expect(404);
    await ctx.http().delete('/api/v1/templates/order_shipped').set(bearer(writer)).expect(404);
    expect((await putTemplate('order_shipped', shipped).expect(201)).body.data.version).toBe(1);
  });

  it('needs templates:write to write, notifications:send or templates:write to read', async () => {
    const sender = await newToken(ctx, tenant.appId, ['notifications:send']);
    const other = await newToken(ctx, tenant.appId, ['installations:write']);
    await putTemplate('news', shipped, sender).expect(403, FORBIDDEN);
    await ctx.http().get('/api/v1/templates').set(bearer(other)).expect(403, FORBIDDEN);
    await ctx.http().get('/api/v1/templates/news').set(bearer(other)).expect(403, FORBIDDEN);
  });

  it("refuses a text that does not parse at the field's path with the parser's message, and keys as a topic's", async () => {
    const broken = await putTemplate('broken', { ...shipped, notification: { title: 'Hi {{ vars.name ', body: 'x' } }).expect(422);
    expect(broken.body.errors).toEqual({
      'notification.title': [expect.stringMatching(/^The notification.title field is not a valid Liquid template: output "\{\{ vars.name " not closed/)],
    });
    const include = await putTemplate('broken', { ...shipped, localizations: { fr: { body: '{% include "secrets" %}' } } }).expect(422);
    expect(include.body.errors).toEqual({ 'localizations.fr.body': [expect.stringContaining('the include tag is not available')] });
    await putTemplate('Not A Key', shipped).expect(422);
    await ctx.http().get('/api/v1/templates/broken').set(bearer(writer)).expect(404);
  });

  it('refuses unrendered texts that cannot fit a platform the app reaches', async () => {
    const body = 'x'.repeat(4000);
    const big = await putTemplate('big', { name: 'Big', notification: { title: 'Big', body }, data: { padding: 'y'.repeat(3000) } }).expect(422);
    expect(Object.keys(big.body.errors)).toEqual(['notification']);
    expect(big.body.errors.notification[0]).toMatch(/^The notification is too large for /);
  });

  describe('sending (docs/api.md#sending-with-a-template)', () => {
    const send = (body: Record<string, unknown>) => ctx.http().post('/api/v1/notifications').set(bearer(tenant.token)).send(body);
    const read = async (id: string) => (await ctx.http().get(`/api/v1/notifications/${id}`).set(bearer(tenant.token)).expect(200)).body.data;
    const alertOf = (token: string) => (stack.fakes.apns.requests.find((r) => r.token === token)!.payload as { aps: { alert: unknown } }).aps.alert;

    it('renders each installation its own text, localized first; the Notification names the template', async () => {
      await putTemplate('welcome', {
        name: 'Welcome',
        notification: { title: 'Hi {{ properties.first_name | default: "there" }}', body: '{{ vars.offer | upcase }} for {{ user_id }}' },
        localizations: { fr: { title: 'Bonjour {{ properties.first_name }}' } },
      });
      const [en, fr, bare] = [apnsToken(), apnsToken(), apnsToken()];
      await newInstallation(ctx, tenant.token, { platform: 'ios', push_token: en, user_id: 'ann', properties: { first_name: 'Ann' } });
      await newInstallation(ctx, tenant.token, {
        platform: 'ios',
        push_token: fr,
        user_id: 'zoe',
        device: { locale: 'fr_FR' },
        properties: { first_name: 'Zoé' },
      });
      await newInstallation(ctx, tenant.token, { platform: 'ios', push_token: bare, user_id: 'bob' });
      const res = await send({ recipients: { user_ids: ['ann', 'zoe', 'bob'] }, template: { key: 'welcome', variables: { offer: 'free shipping' } } }).expect(
        202,
      );
      expect(res.body.data.template).toEqual({ key: 'welcome', version: 1 });
      expect(res.body.data.notification.title).toBe('Hi {{ properties.first_name | default: "there" }}');
      await waitFor(async () => (await read(res.body.data.id)).completed_at, 'the send to complete');
      expect(alertOf(en)).toEqual({ title: 'Hi Ann', body: 'FREE SHIPPING for ann' });
      expect(alertOf(fr)).toEqual({ title: 'Bonjour Zoé', body: 'FREE SHIPPING for zoe' });
      expect(alertOf(bare)).toEqual({ title: 'Hi there', body: 'FREE SHIPPING for bob' });
      expect((await read(res.body.data.id)).statistics).toMatchObject({ accepted: 3, skipped: 0 });
    });

    it('makes an inline notification Liquid only with options.personalize; an inline send has template null', async () => {
      const token = apnsToken();
      await newInstallation(ctx, tenant.token, { platform: 'ios', push_token: token, user_id: 'pat' });
      const plain = await send({ recipients: { user_ids: ['pat'] }, notification: { title: 'Hi {{ user_id }}', body: 'b' } }).expect(202);
      expect(plain.body.data.template).toBeNull();
      await waitFor(async () => (await read(plain.body.data.id)).completed_at, 'the plain send');
      expect(alertOf(token)).toEqual({ title: 'Hi {{ user_id }}', body: 'b' });
      stack.fakes.apns.requests.length = 0;
      const personal = await send({
        recipients: { user_ids: ['pat'] },
        notification: { title: 'Hi {{ user_id }}', body: '{{ vars.n | plus: 1 }}' },
        variables: { n: 41 },
        options: { personalize: true },
      }).expect(202);
      await waitFor(async () => (await read(personal.body.data.id)).completed_at, 'the personalized send');
      expect(alertOf(token)).toEqual({ title: 'Hi pat', body: '42' });
    });

    it('skips an installation whose rendering fails as RenderFailed, with the reason in the trace', async () => {
      await putTemplate('loop', { name: 'Loop', notification: { title: 'T', body: '{% for i in (1..100000000) %}{{ i }}{% endfor %}' } }).expect(201);
      const token = apnsToken();
      await newInstallation(ctx, tenant.token, { platform: 'ios', push_token: token, user_id: 'looper' });
      const res = await send({ recipients: { user_ids: ['looper'] }, template: { key: 'loop' } }).expect(202);
      await waitFor(async () => (await read(res.body.data.id)).completed_at, 'the send');
      const trace = await ctx.http().get(`/api/v1/notifications/${res.body.data.id}/deliveries`).set(bearer(tenant.token)).expect(200);
      expect(trace.body.data).toEqual([expect.objectContaining({ status: 'skipped', reason: 'RenderFailed' })]);
    });

    it('refuses a template with notification, an unknown key or version, and a personalized text that does not parse', async () => {
      await putTemplate('known', shipped);
      const recipients = { user_ids: ['x'] };
      const both = await send({ recipients, template: { key: 'known' }, notification: { title: 't', body: 'b' } }).expect(422);
      expect(both.body.errors).toEqual({ template: ['The template field must not be given together with notification.'] });
      expect((await send({ recipients, template: { key: 'nosuch' } }).expect(422)).body.errors).toEqual({
        'template.key': ['The template.key field names no template of the app.'],
      });
      expect((await send({ recipients, template: { key: 'known', version: 9 } }).expect(422)).body.errors).toEqual({
        'template.version': ['The template.version field names no version of template known.'],
      });
      const broken = await send({ recipients, notification: { title: '{% if %}', body: 'b' }, options: { personalize: true } }).expect(422);
      expect(Object.keys(broken.body.errors)).toEqual(['notification.title']);
      // Without personalize the same text is plain and valid.
      await send({ recipients, notification: { title: '{% if %}', body: 'b' } }).expect(202);
      const versioned = await send({ recipients, template: { key: 'known', version: 1 } }).expect(202);
      expect(versioned.body.data.template).toEqual({ key: 'known', version: 1 });
    });
  });

  describe('preview (docs/api.md#preview)', () => {
    it("answers the payload an installation would receive, rendered with its variables, or every platform's without one", async () => {
      await putTemplate('promo', {
        name: 'Promo',
        notification: { title: 'Hi {{ properties.first_name | default: "there" }}', body: '{{ vars.offer }} on {{ platform }}' },
        localizations: { fr: { title: 'Salut {{ properties.first_name }}' } },
      });
      const id = `preview-${Date.now()}`;
      await newInstallation(
        ctx,
        tenant.token,
        { platform: 'ios', push_token: apnsToken(), device: { locale: 'fr-FR' }, properties: { first_name: 'Zoé' } },
        id,
      );
      const sender = await newToken(ctx, tenant.appId, ['notifications:send']);
      const one = await ctx
        .http()
        .post('/api/v1/templates/promo/preview')
        .set(bearer(sender))
        .send({ installation_id: id, variables: { offer: '10%' } })
        .expect(200);
      expect(one.body.data).toEqual({
        installation_id: id,
        platforms: [
          {
            platform: 'ios',
            provider: 'apns',
            payload: { aps: { alert: { title: 'Salut Zoé', body: '10% on ios' } }, notification_id: expect.any(String) },
            bytes: expect.any(Number),
            limit: 4096,
            skip_reason: null,
            detail: null,
          },
        ],
      });
      const every = await ctx
        .http()
        .post('/api/v1/templates/promo/preview')
        .set(bearer(sender))
        .send({ variables: { offer: '5%' } })
        .expect(200);
      expect(every.body.data.platforms.map((p: { platform: string }) => p.platform)).toEqual(['ios', 'android', 'web', 'huawei']);
      expect(every.body.data.platforms[1].payload.message.notification).toEqual({ title: 'Hi there', body: '5% on android' });
      expect(every.body.data.platforms[2].payload).toMatchObject({ title: 'Hi there', body: '5% on web' });
      await ctx.http().post('/api/v1/templates/nosuch/preview').set(bearer(sender)).send({}).expect(404);
      const unknown = await ctx.http().post('/api/v1/templates/promo/preview').set(bearer(sender)).send({ installation_id: 'nobody' }).expect(422);
      expect(unknown.body.errors).toEqual({ installation_id: ['The installation_id field names no installation of the app.'] });
    });

    it('previews a send body as it would be sent, with RenderFailed where the delivery would skip', async () => {
      const res = await ctx
        .http()
        .post('/api/v1/notifications/preview')
        .set(bearer(tenant.token))
        .send({
          recipients: { all: true },
          notification: { title: 'Hi {{ vars.name }}', body: '{% for i in (1..100000000) %}x{% endfor %}' },
          variables: { name: 'Ann' },
          options: { personalize: true, platforms: ['android'] },
        })
        .expect(200);
      expect(res.body.data.platforms).toEqual([
        {
          platform: 'android',
          provider: 'fcm',
          payload: null,
          bytes: null,
          limit: 4096,
          skip_reason: 'RenderFailed',
          detail: expect.stringContaining('limit'),
        },
      ]);
      const plain = await ctx
        .http()
        .post('/api/v1/notifications/preview')
        .set(bearer(tenant.token))
        .send({ recipients: { all: true }, notification: { title: 'Hi {{ vars.name }}', body: 'b' }, options: { platforms: ['web'] } })
        .expect(200);
      expect(plain.body.data.platforms[0].payload).toMatchObject({ title: 'Hi {{ vars.name }}', body: 'b' });
    });
  });
});
