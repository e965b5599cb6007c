import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Response, Test } from 'supertest';
import { LIVE_ACTIVITIES_LISTED } from '../../src/admin/admin.service';
import { AllModule } from '../../src/app.module';
import { useTestApp } from '../support/create-test-app';
import { apnsToken, bearer, newApp, newInstallation, type TestTenant } from '../support/factories';
import { type OpenApiDocument, responseChecker } from '../support/openapi-schemas';
import { configureProviders, type FakeProviders, startFakeProviders } from '../support/providers';
import { waitFor } from '../support/wait-for';

const ADMIN = { user: 'ops', password: 'a-long-dashboard-password' };
const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
const DOCUMENT = JSON.parse(readFileSync(resolve(__dirname, '../../clients/admin/openapi.json'), 'utf8')) as OpenApiDocument;
const MISSING = '0b6f2f3e-6b1c-4d3a-9a57-2f8d9c1e4b10';
const PATH = '/admin/api/apps/{app}/live-activities';

/**
 * Issue 30 item 6: the dashboard lists an app's Live Activities, each with its last update, and its
 * broadcast channels (GET /admin/api/apps/{app}/live-activities), from rows made through the public
 * API (docs/api.md#live-activities) and sent by the worker to the loopback APNs; every answer as
 * the dashboard's OpenAPI document describes it.
 */
describe("operator dashboard's Live Activities (issue 30 item 6)", () => {
  let fakes: FakeProviders;
  beforeAll(async () => {
    fakes = await startFakeProviders();
  });
  const ctx = useTestApp(() => ({
    module: AllModule,
    env: { ...fakes.env, APNS_CHANNELS_URL: fakes.apns.baseUrl, ADMIN_USER: ADMIN.user, ADMIN_PASSWORD: ADMIN.password },
  }));
  afterAll(() => fakes?.stop());
  const check = responseChecker(DOCUMENT);
  let tenant: TestTenant;
  let cookie: string;

  const expectAnswer = async (request: Test, status: number): Promise<any> => {
    const res: Response = await request;
    expect({ status: res.status, body: res.status === status ? undefined : res.body }).toEqual({ status, body: undefined });
    const problem = check(PATH, 'get', res.status, res.body, res.text ?? '');
    if (problem) throw new Error(`GET ${PATH}: ${problem}`);
    return res.body;
  };
  const list = (appId: string, status = 200) => expectAnswer(ctx.http().get(`/admin/api/apps/${appId}/live-activities`).set('Cookie', cookie), status);

  const register = (token: string, activityId: string, installationId: string) =>
    ctx
      .http()
      .put(`/api/v1/live-activities/${activityId}`)
      .set(bearer(token))
      .send({ installation_id: installationId, attributes_type: 'DeliveryAttributes', push_token: apnsToken() })
      .expect(201);
  const update = async (token: string, activityId: string, body: Record<string, unknown>) =>
    (await ctx.http().post(`/api/v1/live-activities/${activityId}/updates`).set(bearer(token)).send(body).expect(202)).body.data as { id: string };
  const settled = (token: string, activityId: string, updateId: string) =>
    waitFor(async () => {
      const res = await ctx.http().get(`/api/v1/live-activities/${activityId}/updates/${updateId}`).set(bearer(token)).expect(200);
      return res.body.data.status !== 'pending' && res.body.data;
    }, `update ${updateId} to settle`);

  beforeAll(async () => {
    tenant = await newApp(ctx, 'Live dashboard');
    await configureProviders(ctx, tenant.appId, fakes);
    const login = await ctx.http().post('/admin/api/session').set('Authorization', basic(ADMIN.user, ADMIN.password)).expect(200);
    cookie = (login.headers['set-cookie'] as unknown as string[])[0].split(';')[0];
  });

  it('lists the activities newest first, each with its last update, and the channels', async () => {
    const installation = await newInstallation(ctx, tenant.token, { platform: 'ios', push_token: apnsToken() });
    // Sent: two updates, the second the last. Never updated. Ended by an `end` update.
    await register(tenant.token, 'order-1', installation.installation_id);
    await settled(tenant.token, 'order-1', (await update(tenant.token, 'order-1', { event: 'update', content_state: { step: 1 } })).id);
    const second = await update(tenant.token, 'order-1', { event: 'update', content_state: { step: 2 } });
    const sent = await settled(tenant.token, 'order-1', second.id);
    await register(tenant.token, 'order-2', installation.installation_id);
    await register(tenant.token, 'order-3', installation.installation_id);
    const end = await update(tenant.token, 'order-3', { event: 'end', content_state: { step: 3 } });
    await settled(tenant.token, 'order-3', end.id);
    const channel = (await ctx.http().post('/api/v1/live-activity-channels').set(bearer(tenant.token)).send({ storage: 'most_recent' }).expect(201)).body.data;

    const { data } = await list(tenant.appId);
    expect(data.limit).toBe(LIVE_ACTIVITIES_LISTED);
    expect(data.activities.map((a: { activity_id: string }) => a.activity_id)).toEqual(['order-3', 'order-2', 'order-1']);
    const [ended, untouched, updated] = data.activities;
    // Each is the API's own LiveActivity resource, with its last update beside it.
    for (const activity of data.activities) {
      const { last_update: _, ...resource } = activity;
      const api = await ctx.http().get(`/api/v1/live-activities/${activity.activity_id}`).set(bearer(tenant.token)).expect(200);
      expect(resource).toEqual(api.body.data);
    }
    expect(updated).toMatchObject({ installation_id: installation.installation_id, attributes_type: 'DeliveryAttributes', status: 'active' });
    expect(updated.last_update).toEqual({
      id: second.id,
      seq: 2,
      event: 'update',
      status: 'accepted',
      reason: null,
      created_at: sent.created_at,
      updated_at: expect.any(String),
    });
    expect(Date.parse(updated.last_update.updated_at)).toBeGreaterThanOrEqual(Date.parse(sent.created_at));
    expect(untouched).toMatchObject({ status: 'active', last_update: null });
    expect(ended).toMatchObject({ status: 'ended', ended_at: expect.any(String), last_update: { id: end.id, seq: 1, event: 'end', status: 'accepted' } });
    expect(data.channels).toEqual([{ ...channel, last_broadcast: null }]);
  });

  it("shows each channel's newest broadcast as the API reads it", async () => {
    const app = await newApp(ctx, 'Broadcasting app');
    await configureProviders(ctx, app.appId, fakes);
    const create = async () =>
      (await ctx.http().post('/api/v1/live-activity-channels').set(bearer(app.token)).send({ storage: 'none' }).expect(201)).body.data as { id: string };
    const quiet = await create();
    const busy = await create();
    const broadcast = async (event: string, step: number) =>
      (
        await ctx
          .http()
          .post(`/api/v1/live-activity-channels/${encodeURIComponent(busy.id)}/updates`)
          .set(bearer(app.token))
          .send({ event, content_state: { step } })
          .expect(202)
      ).body.data as { id: string };
    const read = (id: string) =>
      waitFor(async () => {
        const res = await ctx
          .http()
          .get(`/api/v1/live-activity-channels/${encodeURIComponent(busy.id)}/updates/${id}`)
          .set(bearer(app.token))
          .expect(200);
        return res.body.data.status !== 'pending' && res.body.data;
      }, `broadcast ${id} to settle`);
    await read((await broadcast('update', 1)).id);
    const newest = await read((await broadcast('end', 2)).id);

    const { data } = await list(app.appId);
    expect(data.channels).toEqual([
      { ...busy, last_broadcast: newest },
      { ...quiet, last_broadcast: null },
    ]);
    expect(newest).toMatchObject({ event: 'end', status: 'accepted' });
  });

  it("shows only the app's own, and an app without any as empty lists", async () => {
    const other = await newApp(ctx, 'Quiet app');
    const installation = await newInstallation(ctx, other.token, { platform: 'ios', push_token: apnsToken() });
    const empty = await list(other.appId);
    expect(empty.data).toEqual({ activities: [], channels: [], limit: LIVE_ACTIVITIES_LISTED });
    await register(other.token, 'order-1', installation.installation_id);
    expect((await list(other.appId)).data.activities.map((a: { installation_id: string }) => a.installation_id)).toEqual([installation.installation_id]);
    expect((await list(tenant.appId)).data.activities.map((a: { installation_id: string }) => a.installation_id)).not.toContain(installation.installation_id);
  });

  it(`lists at most the newest ${LIVE_ACTIVITIES_LISTED}`, async () => {
    const many = await newApp(ctx, 'Busy app');
    const installation = await newInstallation(ctx, many.token, { platform: 'ios', push_token: apnsToken() });
    for (let i = 0; i <= LIVE_ACTIVITIES_LISTED; i++) await register(many.token, `ride-${i}`, installation.installation_id);
    const ids = (await list(many.appId)).data.activities.map((a: { activity_id: string }) => a.activity_id);
    expect(ids).toHaveLength(LIVE_ACTIVITIES_LISTED);
    expect(ids[0]).toBe(`ride-${LIVE_ACTIVITIES_LISTED}`);
    expect(ids).not.toContain('ride-0');
  });

  it('refuses as documented: 401 without a session, 404 for an unknown app', async () => {
    await expectAnswer(ctx.http().get(`/admin/api/apps/${tenant.appId}/live-activities`), 401);
    await list(MISSING, 404);
  });
});
