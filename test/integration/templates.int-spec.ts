import { bearer, newApp, newToken } from '../support/factories';
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
});
