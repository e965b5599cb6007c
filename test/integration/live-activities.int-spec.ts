import { createPrivateKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { connect } from 'node:http2';
import { SignJWT } from 'jose';
import { Clock } from '../../src/common/time';
import { CredentialsService } from '../../src/credentials/credentials.service';
import { LiveActivitiesRepository } from '../../src/live-activities/live-activities.repository';
import { AllModule } from '../../src/app.module';
import { FakeApnsChannels, generateApnsKey, liveActivityProblem, TEST_CA_PATH, topicFor } from '../fakes';
import { useTestApp } from '../support/create-test-app';
import { apnsToken, bearer, fcmToken, newApp, newInstallation, newToken } from '../support/factories';
import { APNS_TOPIC, configureProviders, FakeProviders, startFakeProviders } from '../support/providers';
import { notificationCompleted } from '../support/notifications';
import { TestClock } from '../support/test-clock';
import { waitFor } from '../support/wait-for';

/**
 * Live Activities (docs/api.md#live-activities): start tokens on installations, the activity
 * resource, updates and ends as the loopback APNs receives and judges them, the order rules
 * (`timestamp` never back, `Superseded`), token death and Idempotency-Key.
 */
describe('live activities (docs/api.md#live-activities)', () => {
  let fakes: FakeProviders;
  const clock = new TestClock();
  beforeAll(async () => {
    fakes = await startFakeProviders();
  });
  const ctx = useTestApp(() => ({
    module: AllModule,
    env: { ...fakes.env, APNS_CHANNELS_URL: fakes.apns.baseUrl },
    override: (builder) => builder.overrideProvider(Clock).useValue(clock),
  }));
  afterAll(() => fakes?.stop());

  let token: string;
  beforeAll(async () => {
    const app = await newApp(ctx, 'Live');
    token = app.token;
    await configureProviders(ctx, app.appId, fakes);
  });
  afterEach(() => clock.reset());

  const http = () => ctx.http();
  let counter = 0;
  const activityId = () => `activity-${++counter}-${Date.now()}`;
  const register = (id: string, body: Record<string, unknown>) => http().put(`/api/v1/live-activities/${id}`).set(bearer(token)).send(body);
  const post = (id: string, body: Record<string, unknown>) => http().post(`/api/v1/live-activities/${id}/updates`).set(bearer(token)).send(body);
  const readUpdate = async (id: string, updateId: string) =>
    (await http().get(`/api/v1/live-activities/${id}/updates/${updateId}`).set(bearer(token)).expect(200)).body.data;
  const settled = (id: string, updateId: string) =>
    waitFor(async () => {
      const update = await readUpdate(id, updateId);
      return update.status !== 'pending' && update;
    }, `update ${updateId} to settle`);
  const toToken = (pushToken: string) => fakes.apns.requests.filter((r) => r.token === pushToken);

  /** An iOS installation and an active activity on it; returns the ids and the update token. */
  async function running(): Promise<{ id: string; pushToken: string; installation: string }> {
    const installation = await newInstallation(ctx, token, { platform: 'ios', push_token: apnsToken() });
    const id = activityId();
    const pushToken = apnsToken();
    await register(id, { installation_id: installation.installation_id, attributes_type: 'DeliveryAttributes', push_token: pushToken }).expect(201);
    return { id, pushToken, installation: installation.installation_id };
  }

  describe('start tokens on installations (docs/api.md#live-activity-start-tokens)', () => {
    const tokens = { 'Shop.DeliveryAttributes': apnsToken(), ScoreAttributes: apnsToken().toUpperCase() };

    it('stores them write-only and shows the sorted types; PATCH replaces, {} clears', async () => {
      const created = await newInstallation(ctx, token, { live_activity_start_tokens: tokens });
      expect(created.live_activity_types).toEqual(['ScoreAttributes', 'Shop.DeliveryAttributes']);
      expect(JSON.stringify(created)).not.toContain(tokens.ScoreAttributes.toLowerCase());
      const [row] = await ctx.db.query(`SELECT live_activity_start_tokens AS t FROM installations WHERE id = $1`, [created.id]);
      expect(row.t.ScoreAttributes).toBe(tokens.ScoreAttributes.toLowerCase());

      const patch = (body: Record<string, unknown>) => http().patch(`/api/v1/installations/${created.installation_id}`).set(bearer(token)).send(body);
      expect((await patch({ live_activity_start_tokens: { RideAttributes: apnsToken() } }).expect(200)).body.data.live_activity_types).toEqual([
        'RideAttributes',
      ]);
      expect((await patch({ permission: 'granted' }).expect(200)).body.data.live_activity_types).toEqual(['RideAttributes']);
      expect((await patch({ live_activity_start_tokens: {} }).expect(200)).body.data.live_activity_types).toEqual([]);
    });

    it('is iOS only', async () => {
      const res = await http()
        .put('/api/v1/installations/android-live')
        .set(bearer(token))
        .send({ platform: 'android', push_token: fcmToken(), live_activity_start_tokens: { A: apnsToken() } })
        .expect(422);
      expect(Object.keys(res.body.errors)).toEqual(['live_activity_start_tokens']);
      const android = await newInstallation(ctx, token, { platform: 'android', push_token: fcmToken() });
      await http().patch(`/api/v1/installations/${android.installation_id}`).set(bearer(token)).send({ live_activity_start_tokens: {} }).expect(422);
    });

    it.each<[string, unknown, string]>([
      ['a type with a space', { 'Bad Type': apnsToken() }, 'live_activity_start_tokens.Bad Type'],
      ['a type of 129 characters', { ['A'.repeat(129)]: apnsToken() }, `live_activity_start_tokens.${'A'.repeat(129)}`],
      ['a token that is not hex', { A: 'z'.repeat(64) }, 'live_activity_start_tokens.A'],
      ['a token of 63 characters', { A: 'a'.repeat(63) }, 'live_activity_start_tokens.A'],
      ['11 entries', Object.fromEntries(Array.from({ length: 11 }, (_, n) => [`T${n}`, apnsToken()])), 'live_activity_start_tokens'],
      ['not an object', ['x'], 'live_activity_start_tokens'],
    ])('refuses %s at its path', async (_what, value, path) => {
      const res = await http()
        .put('/api/v1/installations/bad-start-tokens')
        .set(bearer(token))
        .send({ platform: 'ios', push_token: apnsToken(), live_activity_start_tokens: value })
        .expect(422);
      expect(Object.keys(res.body.errors)).toEqual([path]);
    });
  });

  describe('the activity resource (docs/api.md#live-activity-resource)', () => {
    it('records (201), refreshes (200), reads and ends (204) it, never showing the token', async () => {
      const { id, pushToken, installation } = await running();
      const read = (await http().get(`/api/v1/live-activities/${id}`).set(bearer(token)).expect(200)).body.data;
      expect(read).toEqual({
        activity_id: id,
        installation_id: installation,
        attributes_type: 'DeliveryAttributes',
        status: 'active',
        created_at: expect.any(String),
        updated_at: expect.any(String),
        ended_at: null,
        invalid_reason: null,
      });
      expect(JSON.stringify(read)).not.toContain(pushToken);
      await register(id, { installation_id: installation, attributes_type: 'DeliveryAttributes', push_token: apnsToken() }).expect(200);
      await http().delete(`/api/v1/live-activities/${id}`).set(bearer(token)).expect(204);
      const ended = (await http().get(`/api/v1/live-activities/${id}`).set(bearer(token)).expect(200)).body.data;
      expect(ended).toMatchObject({ status: 'ended', ended_at: expect.any(String) });
      await post(id, { event: 'update', content_state: {} }).expect(409, { message: 'This live activity has ended.' });
    });

    it('answers 404 for an unknown activity and 422 for bad input', async () => {
      await http().get('/api/v1/live-activities/nope').set(bearer(token)).expect(404, { message: 'Not Found' });
      await http().delete('/api/v1/live-activities/nope').set(bearer(token)).expect(404);
      await post('nope', { event: 'update', content_state: {} }).expect(404);
      const long = await http()
        .get(`/api/v1/live-activities/${'a'.repeat(256)}`)
        .set(bearer(token))
        .expect(422);
      expect(Object.keys(long.body.errors)).toEqual(['activity_id']);
      const android = await newInstallation(ctx, token, { platform: 'android', push_token: fcmToken() });
      const res = await register(activityId(), { installation_id: android.installation_id, attributes_type: 'A', push_token: apnsToken() }).expect(422);
      expect(Object.keys(res.body.errors)).toEqual(['installation_id']);
      const missing = await register(activityId(), {}).expect(422);
      expect(Object.keys(missing.body.errors).sort()).toEqual(['attributes_type', 'installation_id', 'push_token']);
      const unknown = await register(activityId(), { installation_id: 'nobody', attributes_type: 'A', push_token: apnsToken() }).expect(422);
      expect(Object.keys(unknown.body.errors)).toEqual(['installation_id']);
    });

    it('needs the abilities of the contract', async () => {
      const { id } = await running();
      const reader = await newToken(ctx, (await ctx.db.query(`SELECT app_id FROM live_activities WHERE activity_id = $1`, [id]))[0].app_id, [
        'installations:read',
      ]);
      await http().get(`/api/v1/live-activities/${id}`).set(bearer(reader)).expect(200);
      await http().post(`/api/v1/live-activities/${id}/updates`).set(bearer(reader)).send({ event: 'update', content_state: {} }).expect(403);
      await http().delete(`/api/v1/live-activities/${id}`).set(bearer(reader)).expect(403);
    });
  });

  describe('updates (docs/api.md#live-activity-updates)', () => {
    it('sends an update as APNs wants it: push type, topic, priority 5, timestamp in seconds of acceptance', async () => {
      const { id, pushToken } = await running();
      const res = await post(id, {
        event: 'update',
        content_state: { status: 'out', eta_minutes: 5 },
        stale_date: '2030-01-01T00:00:00.000Z',
        relevance_score: 0.5,
      }).expect(202);
      const update = res.body.data;
      expect(update).toEqual({ id: expect.any(String), activity_id: id, event: 'update', status: 'pending', reason: null, created_at: expect.any(String) });
      expect(await settled(id, update.id)).toMatchObject({ status: 'accepted', reason: null });
      const [request] = toToken(pushToken);
      expect(request.status).toBe(200);
      expect(request.headers).toMatchObject({ 'apns-push-type': 'liveactivity', 'apns-topic': `${APNS_TOPIC}.push-type.liveactivity`, 'apns-priority': '5' });
      expect(request.payload).toEqual({
        aps: {
          event: 'update',
          timestamp: Math.floor(Date.parse(update.created_at) / 1000),
          'content-state': { status: 'out', eta_minutes: 5 },
          'stale-date': Date.UTC(2030, 0, 1) / 1000,
          'relevance-score': 0.5,
        },
      });
    });

    it('sends high priority as 10 and an alert; an end ends the activity once APNs accepts it', async () => {
      const { id, pushToken } = await running();
      const high = (
        await post(id, { event: 'update', content_state: { a: 1 }, priority: 'high', alert: { title: 'Near', body: 'Two minutes', sound: 'default' } }).expect(
          202,
        )
      ).body.data;
      await settled(id, high.id);
      const end = (await post(id, { event: 'end', content_state: { a: 2 }, dismissal_date: '2030-01-01T01:00:00.000Z' }).expect(202)).body.data;
      expect(await settled(id, end.id)).toMatchObject({ status: 'accepted' });
      const [first, second] = toToken(pushToken);
      expect(first.headers['apns-priority']).toBe('10');
      expect((first.payload as any).aps.alert).toEqual({ title: 'Near', body: 'Two minutes', sound: 'default' });
      expect((second.payload as any).aps).toMatchObject({ event: 'end', 'dismissal-date': Date.UTC(2030, 0, 1, 1) / 1000 });
      expect((await http().get(`/api/v1/live-activities/${id}`).set(bearer(token)).expect(200)).body.data).toMatchObject({
        status: 'ended',
        invalid_reason: null,
      });
      await post(id, { event: 'update', content_state: {} }).expect(409);
    });

    it.each<[string, Record<string, unknown>, string]>([
      ['no event', { content_state: {} }, 'event'],
      ['a start event', { event: 'start', content_state: {} }, 'event'],
      ['no content_state', { event: 'update' }, 'content_state'],
      ['a content_state over 4 KiB', { event: 'update', content_state: { x: 'y'.repeat(4100) } }, 'content_state'],
      ['a dismissal_date on an update', { event: 'update', content_state: {}, dismissal_date: '2030-01-01T00:00:00Z' }, 'dismissal_date'],
      ['a relevance_score of 2', { event: 'update', content_state: {}, relevance_score: 2 }, 'relevance_score'],
      ['a priority of 10', { event: 'update', content_state: {}, priority: '10' }, 'priority'],
      ['an unknown alert key', { event: 'update', content_state: {}, alert: { subtitle: 'x' } }, 'alert.subtitle'],
      ['an unknown key', { event: 'update', content_state: {}, timestamp: 1 }, 'timestamp'],
    ])('refuses %s', async (_what, body, path) => {
      const { id } = await running();
      const res = await post(id, body).expect(422);
      expect(Object.keys(res.body.errors)).toEqual([path]);
    });

    it('refuses at once an update whose whole payload would exceed 4 KiB', async () => {
      const { id } = await running();
      const res = await post(id, { event: 'update', content_state: { x: 'y'.repeat(3000) }, alert: { title: 't', body: 'b'.repeat(1100) } }).expect(422);
      expect(Object.keys(res.body.errors)).toEqual(['content_state']);
    });

    it('never stamps a later update with an earlier timestamp, even when the clock goes back', async () => {
      const { id, pushToken } = await running();
      clock.advance(30_000);
      const first = (await post(id, { event: 'update', content_state: { n: 1 } }).expect(202)).body.data;
      clock.reset();
      const second = (await post(id, { event: 'update', content_state: { n: 2 } }).expect(202)).body.data;
      expect(Date.parse(second.created_at)).toBe(Date.parse(first.created_at));
      await settled(id, second.id);
      await settled(id, first.id);
      const stamps = toToken(pushToken).map((r) => (r.payload as any).aps.timestamp);
      expect(stamps.every((stamp, n) => n === 0 || stamp >= stamps[n - 1])).toBe(true);
    });

    it('skips an older update that is retried after a newer one was accepted (Superseded)', async () => {
      const { id, pushToken } = await running();
      // The first attempt of the first update is told to come back in a second; the second update gets through meanwhile.
      fakes.apns.script(pushToken, [{ status: 429, reason: 'TooManyRequests', retryAfter: 1 }]);
      const old = (await post(id, { event: 'update', content_state: { n: 1 } }).expect(202)).body.data;
      await waitFor(async () => toToken(pushToken).length === 1, 'the first attempt');
      const newer = (await post(id, { event: 'update', content_state: { n: 2 } }).expect(202)).body.data;
      expect(await settled(id, newer.id)).toMatchObject({ status: 'accepted' });
      expect(await settled(id, old.id)).toMatchObject({ status: 'skipped', reason: 'Superseded' });
      expect(
        toToken(pushToken)
          .filter((r) => r.status === 200)
          .map((r) => (r.payload as any).aps['content-state']),
      ).toEqual([{ n: 2 }]);
    });

    it.each([
      [410, 'Unregistered'],
      [400, 'BadDeviceToken'],
    ])('ends the activity when APNs kills the token (%i %s)', async (status, reason) => {
      const { id, pushToken } = await running();
      fakes.apns.script(pushToken, [{ status, reason }]);
      const update = (await post(id, { event: 'update', content_state: {} }).expect(202)).body.data;
      expect(await settled(id, update.id)).toMatchObject({ status: 'failed', reason });
      const activity = (await http().get(`/api/v1/live-activities/${id}`).set(bearer(token)).expect(200)).body.data;
      expect(activity).toMatchObject({ status: 'ended', invalid_reason: reason, ended_at: expect.any(String) });
      await post(id, { event: 'update', content_state: {} }).expect(409);
      // A new token (pushTokenUpdates) revives it.
      await register(id, {
        installation_id: (
          await ctx.db.query(`SELECT i.installation_id FROM live_activities a JOIN installations i ON i.id = a.installation_id WHERE a.activity_id = $1`, [id])
        )[0].installation_id,
        attributes_type: 'DeliveryAttributes',
        push_token: apnsToken(),
      }).expect(200);
      expect((await http().get(`/api/v1/live-activities/${id}`).set(bearer(token)).expect(200)).body.data).toMatchObject({
        status: 'active',
        invalid_reason: null,
        ended_at: null,
      });
    });

    it('sends an update whose job was lost (stored while Redis was away): the sweeper queues it', async () => {
      const { id, pushToken } = await running();
      const [{ app_id: appId }] = await ctx.db.query(`SELECT app_id FROM live_activities WHERE activity_id = $1`, [id]);
      // Stored as the API stores it, but never queued; a minute old.
      const stored = await ctx
        .get(LiveActivitiesRepository)
        .accept(
          appId,
          id,
          { event: 'update', content: JSON.stringify({ content_state: { lost: true } }), priority: 'normal', acceptedAt: new Date() },
          'active',
        );
      await ctx.db.query(`UPDATE live_activity_updates SET updated_at = now() - interval '1 minute' WHERE id = $1`, [stored!.id]);
      expect(await settled(id, stored!.id)).toMatchObject({ status: 'accepted' });
      expect(toToken(pushToken).map((r) => (r.payload as any).aps['content-state'])).toEqual([{ lost: true }]);
    });

    it('takes an Idempotency-Key as sends do', async () => {
      const { id, pushToken } = await running();
      const body = { event: 'update', content_state: { n: 1 } };
      const first = await post(id, body).set('Idempotency-Key', `k-${id}`).expect(202);
      const again = await post(id, body).set('Idempotency-Key', `k-${id}`).expect(202);
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(again.text).toBe(first.text);
      await post(id, { ...body, content_state: { n: 2 } })
        .set('Idempotency-Key', `k-${id}`)
        .expect(409, { message: 'This idempotency key was already used with a different request.' });
      await settled(id, first.body.data.id);
      expect(toToken(pushToken)).toHaveLength(1);
      const other = await running();
      await post(other.id, body).set('Idempotency-Key', `k-${id}`).expect(409);
    });
  });

  describe('starting activities by a send (docs/api.md#live-activity-starts)', () => {
    const start = { attributes_type: 'DeliveryAttributes', attributes: { order_id: '42' }, content_state: { status: 'preparing' } };
    const send = (userId: string, options: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
      http()
        .post('/api/v1/notifications')
        .set(bearer(token))
        .send({ recipients: { user_ids: [userId] }, notification: { title: 'Order 42', body: 'Being prepared' }, options, ...extra });
    const trace = async (id: string) => (await http().get(`/api/v1/notifications/${id}/deliveries`).set(bearer(token)).expect(200)).body.data;

    it('sends event start to the installations holding a start token for the type, and skips the others', async () => {
      const user = `starter-${Date.now()}`;
      const startToken = apnsToken();
      const holder = await newInstallation(ctx, token, { user_id: user, live_activity_start_tokens: { DeliveryAttributes: startToken, Other: apnsToken() } });
      const without = await newInstallation(ctx, token, { user_id: user, live_activity_start_tokens: { Other: apnsToken() } });
      const android = await newInstallation(ctx, token, { platform: 'android', push_token: fcmToken(), user_id: user });
      const res = await send(user, { live_activity: { ...start, stale_date: '2030-01-01T00:00:00Z', relevance_score: 0.7 }, sound: 'chime.aiff' }).expect(202);
      const id = res.body.data.id;
      const done = await notificationCompleted(ctx, token, id);
      expect(done.statistics).toMatchObject({ installations: 3, accepted: 1, skipped: 2, failed: 0 });
      const rows = await trace(id);
      const byInstallation = (installation: Record<string, any>) =>
        rows.find((r: { installation_id: string }) => r.installation_id === installation.installation_id);
      expect(byInstallation(holder)).toMatchObject({ status: 'accepted' });
      expect(byInstallation(without)).toMatchObject({ status: 'skipped', reason: 'NoLiveActivityToken' });
      expect(byInstallation(android)).toMatchObject({ status: 'skipped', reason: 'PlatformExcluded' });

      const [request] = toToken(startToken);
      expect(request.status).toBe(200);
      expect(request.headers).toMatchObject({ 'apns-push-type': 'liveactivity', 'apns-topic': `${APNS_TOPIC}.push-type.liveactivity`, 'apns-priority': '10' });
      const aps = (request.payload as { aps: Record<string, unknown> }).aps;
      expect(aps).toEqual({
        event: 'start',
        timestamp: expect.any(Number),
        'content-state': { status: 'preparing' },
        'attributes-type': 'DeliveryAttributes',
        attributes: { order_id: '42' },
        alert: { title: 'Order 42', body: 'Being prepared', sound: 'chime.aiff' },
        'input-push-token': 1,
        'stale-date': Date.UTC(2030, 0, 1) / 1000,
        'relevance-score': 0.7,
      });
      expect(Math.abs((aps.timestamp as number) - Date.now() / 1000)).toBeLessThan(60);
      expect((request.payload as Record<string, unknown>).notification_id).toBe(id);
      // The device token was not used.
      expect(fakes.apns.requests.filter((r) => r.token === holder.push_token)).toEqual([]);
    });

    it('makes the started activities listen to a broadcast channel with channel_id', async () => {
      const user = `channel-${Date.now()}`;
      const startToken = apnsToken();
      await newInstallation(ctx, token, { user_id: user, live_activity_start_tokens: { DeliveryAttributes: startToken } });
      const id = (await send(user, { live_activity: { ...start, channel_id: 'dHN0LXNyY2gtY2hubA==' } }).expect(202)).body.data.id;
      await notificationCompleted(ctx, token, id);
      const aps = (toToken(startToken)[0].payload as { aps: Record<string, unknown> }).aps;
      expect(aps['input-push-channel']).toBe('dHN0LXNyY2gtY2hubA==');
      expect(aps['input-push-token']).toBeUndefined();
    });

    it('fails a dead start token without invalidating the installation', async () => {
      const user = `dead-start-${Date.now()}`;
      const startToken = apnsToken();
      const installation = await newInstallation(ctx, token, { user_id: user, live_activity_start_tokens: { DeliveryAttributes: startToken } });
      fakes.apns.script(startToken, [{ status: 410, reason: 'Unregistered' }]);
      const id = (await send(user, { live_activity: start }).expect(202)).body.data.id;
      expect((await notificationCompleted(ctx, token, id)).statistics).toMatchObject({ failed: 1 });
      expect((await trace(id))[0]).toMatchObject({ status: 'failed', reason: 'Unregistered' });
      const after = (await http().get(`/api/v1/installations/${installation.installation_id}`).set(bearer(token)).expect(200)).body.data;
      expect(after.invalidated_at).toBeNull();
    });

    it.each<[string, Record<string, unknown>, Record<string, unknown>, string]>([
      ['no attributes_type', { live_activity: { attributes: {}, content_state: {} } }, {}, 'options.live_activity.attributes_type'],
      ['a bad attributes_type', { live_activity: { ...start, attributes_type: 'a b' } }, {}, 'options.live_activity.attributes_type'],
      ['no attributes', { live_activity: { attributes_type: 'A', content_state: {} } }, {}, 'options.live_activity.attributes'],
      ['no content_state', { live_activity: { attributes_type: 'A', attributes: {} } }, {}, 'options.live_activity.content_state'],
      ['an unknown key', { live_activity: { ...start, event: 'start' } }, {}, 'options.live_activity.event'],
      ['content_available with it', { live_activity: start, content_available: true }, {}, 'options.live_activity'],
      ['no notification (Apple requires an alert)', { live_activity: start }, { notification: undefined }, 'notification'],
    ])('refuses %s', async (_what, options, extra, path) => {
      const res = await send('anyone', options, extra).expect(422);
      expect(Object.keys(res.body.errors)).toEqual([path]);
    });
  });

  describe('broadcast channels (docs/api.md#live-activity-channels)', () => {
    const channels = () => http().get('/api/v1/live-activity-channels').set(bearer(token));
    const create = (storage: unknown) => http().post('/api/v1/live-activity-channels').set(bearer(token)).send({ storage });

    const cast = (channelId: string, body: Record<string, unknown>) =>
      http()
        .post(`/api/v1/live-activity-channels/${encodeURIComponent(channelId)}/updates`)
        .set(bearer(token))
        .send(body);
    const readBroadcast = async (channelId: string, id: string) =>
      (
        await http()
          .get(`/api/v1/live-activity-channels/${encodeURIComponent(channelId)}/updates/${id}`)
          .set(bearer(token))
          .expect(200)
      ).body.data;
    const delivered = (channelId: string, id: string) =>
      waitFor(async () => {
        const broadcast = await readBroadcast(channelId, id);
        return broadcast.status !== 'pending' && broadcast;
      }, `broadcast ${id} to settle`);
    const toChannel = (channelId: string) =>
      fakes.apns.requests.filter((r) => r.headers[':path'] === `/4/broadcasts/apps/${APNS_TOPIC}` && r.token === channelId);

    it('creates channels at APNs, lists them, broadcasts to them and deletes them there too', async () => {
      const none = (await create('none').expect(201)).body.data;
      const kept = (await create('most_recent').expect(201)).body.data;
      expect(none).toEqual({ id: expect.stringMatching(/^[A-Za-z0-9+/]{22}==$/), storage: 'none', created_at: expect.any(String) });
      expect(fakes.apns.liveActivityChannels.channels.get(none.id)).toEqual({ bundleId: APNS_TOPIC, storagePolicy: 0 });
      expect(fakes.apns.liveActivityChannels.channels.get(kept.id)).toEqual({ bundleId: APNS_TOPIC, storagePolicy: 1 });
      const created = fakes.apns.requests.find((r) => r.headers[':path'] === `/1/apps/${APNS_TOPIC}/channels` && r.status === 201)!;
      expect(created.payload).toEqual({ 'message-storage-policy': 0, 'push-type': 'LiveActivity' });
      expect((await channels().expect(200)).body.data.map((c: { id: string }) => c.id)).toEqual(expect.arrayContaining([none.id, kept.id]));

      const sent = await cast(none.id, { event: 'update', content_state: { score: '2-1' }, alert: { title: 'Goal' } }).expect(202);
      expect(sent.body.data).toEqual({
        id: expect.any(String),
        channel_id: none.id,
        event: 'update',
        status: 'pending',
        reason: null,
        attempts: 0,
        created_at: expect.any(String),
      });
      expect(await delivered(none.id, sent.body.data.id)).toEqual({ ...sent.body.data, status: 'accepted', attempts: 1 });
      const [broadcast] = toChannel(none.id);
      expect(broadcast.status).toBe(200);
      expect(broadcast.headers).toMatchObject({ 'apns-channel-id': none.id, 'apns-push-type': 'liveactivity', 'apns-priority': '5' });
      expect(broadcast.headers['apns-topic']).toBeUndefined();
      expect(broadcast.payload).toEqual({
        aps: {
          event: 'update',
          timestamp: Math.floor(Date.parse(sent.body.data.created_at) / 1000),
          'content-state': { score: '2-1' },
          alert: { title: 'Goal' },
        },
      });

      await http()
        .delete(`/api/v1/live-activity-channels/${encodeURIComponent(none.id)}`)
        .set(bearer(token))
        .expect(204);
      expect(fakes.apns.liveActivityChannels.channels.has(none.id)).toBe(false);
      expect((await channels().expect(200)).body.data.map((c: { id: string }) => c.id)).not.toContain(none.id);
      await http()
        .delete(`/api/v1/live-activity-channels/${encodeURIComponent(none.id)}`)
        .set(bearer(token))
        .expect(404);
      await http()
        .post(`/api/v1/live-activity-channels/${encodeURIComponent(none.id)}/updates`)
        .set(bearer(token))
        .send({ event: 'update', content_state: {} })
        .expect(404);
    });

    it("reports APNs' answer when the channel is gone there, and deletes it here all the same", async () => {
      const channel = (await create('none').expect(201)).body.data;
      fakes.apns.liveActivityChannels.channels.delete(channel.id);
      const sent = await cast(channel.id, { event: 'end', content_state: {} }).expect(202);
      expect(await delivered(channel.id, sent.body.data.id)).toMatchObject({ status: 'failed', reason: 'ChannelNotRegistered', attempts: 1 });
      expect(toChannel(channel.id)).toHaveLength(1);
      const res = await http()
        .delete(`/api/v1/live-activity-channels/${encodeURIComponent(channel.id)}`)
        .set(bearer(token));
      expect([res.status, res.body]).toEqual([204, {}]);
    });

    it('stores each broadcast and retries 429 and 5xx answers as sends do, the payload unchanged', async () => {
      const channel = (await create('none').expect(201)).body.data;
      fakes.apns.script(channel.id, [
        { status: 429, reason: 'TooManyRequests' },
        { status: 500, reason: 'InternalServerError' },
      ]);
      const sent = (await cast(channel.id, { event: 'update', content_state: { score: '3-1' } }).expect(202)).body.data;
      expect(await delivered(channel.id, sent.id)).toMatchObject({ status: 'accepted', reason: null, attempts: 3 });
      const attempts = toChannel(channel.id);
      expect(attempts.map((r) => r.status)).toEqual([429, 500, 200]);
      expect(new Set(attempts.map((r) => r.text)).size).toBe(1);
      const [row] = await ctx.db.query(`SELECT status, attempts, channel_id FROM live_activity_broadcasts WHERE id = $1`, [sent.id]);
      expect(row).toEqual({ status: 'accepted', attempts: 3, channel_id: channel.id });
    });

    it('fails a broadcast whose retries run out, with the last reason', async () => {
      const channel = (await create('none').expect(201)).body.data;
      fakes.apns.script(
        channel.id,
        Array.from({ length: 10 }, () => ({ status: 503, reason: 'ServiceUnavailable' })),
      );
      const sent = (await cast(channel.id, { event: 'update', content_state: {} }).expect(202)).body.data;
      const failed = await delivered(channel.id, sent.id);
      expect(failed).toMatchObject({ status: 'failed', reason: 'ServiceUnavailable' });
      expect(toChannel(channel.id)).toHaveLength(failed.attempts);
      expect(failed.attempts).toBeGreaterThan(1);
    });

    it('takes an Idempotency-Key: the same key and body answer as the first time and broadcast once', async () => {
      const channel = (await create('none').expect(201)).body.data;
      const body = { event: 'update', content_state: { score: '4-1' } };
      const key = `cast-${channel.id}`;
      const first = await cast(channel.id, body).set('Idempotency-Key', key).expect(202);
      expect(first.headers['idempotent-replayed']).toBeUndefined();
      await delivered(channel.id, first.body.data.id);
      const again = await cast(channel.id, body).set('Idempotency-Key', key).expect(202);
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(again.text).toBe(first.text);
      expect(toChannel(channel.id)).toHaveLength(1);
      await cast(channel.id, { ...body, content_state: { score: '5-1' } })
        .set('Idempotency-Key', key)
        .expect(409);
      const [{ count }] = await ctx.db.query(`SELECT count(*)::int AS count FROM live_activity_broadcasts WHERE channel_id = $1`, [channel.id]);
      expect(count).toBe(1);
    });

    it('reads a broadcast only through its own app and channel', async () => {
      const channel = (await create('none').expect(201)).body.data;
      const other = (await create('none').expect(201)).body.data;
      const sent = (await cast(channel.id, { event: 'update', content_state: {} }).expect(202)).body.data;
      await http()
        .get(`/api/v1/live-activity-channels/${encodeURIComponent(other.id)}/updates/${sent.id}`)
        .set(bearer(token))
        .expect(404);
      await http()
        .get(`/api/v1/live-activity-channels/${encodeURIComponent(channel.id)}/updates/not-a-uuid`)
        .set(bearer(token))
        .expect(404);
      const stranger = await newApp(ctx, 'Stranger');
      await http()
        .get(`/api/v1/live-activity-channels/${encodeURIComponent(channel.id)}/updates/${sent.id}`)
        .set(bearer(stranger.token))
        .expect(404);
    });

    it('validates the storage and the update body', async () => {
      expect(Object.keys((await create('forever').expect(422)).body.errors)).toEqual(['storage']);
      expect(Object.keys((await http().post('/api/v1/live-activity-channels').set(bearer(token)).send({}).expect(422)).body.errors)).toEqual(['storage']);
      const channel = (await create('none').expect(201)).body.data;
      const res = await http()
        .post(`/api/v1/live-activity-channels/${encodeURIComponent(channel.id)}/updates`)
        .set(bearer(token))
        .send({ event: 'update' })
        .expect(422);
      expect(Object.keys(res.body.errors)).toEqual(['content_state']);
    });

    it('answers 409 with the reason when APNs refuses', async () => {
      const other = await newApp(ctx, 'No topic at the fake');
      const key = generateApnsKey();
      fakes.apns.addKey(key);
      await ctx.get(CredentialsService).update(other.appId, {
        apns: { privateKey: key.privateKeyPem, keyId: key.keyId, teamId: key.teamId, topic: 'com.example.unknown', production: false },
      });
      await http()
        .post('/api/v1/live-activity-channels')
        .set(bearer(other.token))
        .send({ storage: 'none' })
        .expect(409, { message: 'APNs did not create the channel: TopicDisallowed.' });
    });
  });

  describe('the fake APNs judges Live Activity pushes as Apple does', () => {
    const now = Date.UTC(2026, 10, 26, 12);
    const seconds = now / 1000;
    const update = { event: 'update', timestamp: seconds, 'content-state': {} };

    it('needs the .push-type.liveactivity topic for a liveactivity push, and only for it', () => {
      expect(topicFor(`${APNS_TOPIC}.push-type.liveactivity`, 'liveactivity')).toBe(APNS_TOPIC);
      expect(topicFor(APNS_TOPIC, 'liveactivity')).toBeUndefined();
      expect(topicFor(`${APNS_TOPIC}.push-type.liveactivity`, 'alert')).toBeUndefined();
      expect(topicFor(APNS_TOPIC, 'alert')).toBe(APNS_TOPIC);
    });

    it.each<[string, Record<string, unknown>, string | undefined]>([
      ['a valid update', update, undefined],
      ['a valid end with a dismissal date', { ...update, event: 'end', 'dismissal-date': seconds + 60 }, undefined],
      [
        'a valid start',
        { ...update, event: 'start', 'attributes-type': 'A', attributes: {}, alert: { title: 't', body: 'b' }, 'input-push-token': 1 },
        undefined,
      ],
      ['an unknown event', { ...update, event: 'stop' }, 'event'],
      ['no content-state', { event: 'update', timestamp: seconds }, 'content-state'],
      ['a timestamp in milliseconds', { ...update, timestamp: now }, 'timestamp-future'],
      ['a timestamp in the future', { ...update, timestamp: seconds + 3600 }, 'timestamp-future'],
      ['a fractional timestamp', { ...update, timestamp: seconds + 0.5 }, 'timestamp'],
      ['attributes on an update', { ...update, 'attributes-type': 'A', attributes: {} }, 'attributes-type'],
      ['a start without attributes', { ...update, event: 'start', alert: { title: 't' } }, 'attributes-type'],
      ['a start without an alert', { ...update, event: 'start', 'attributes-type': 'A', attributes: {} }, 'alert'],
      ['a dismissal date on an update', { ...update, 'dismissal-date': seconds }, 'dismissal-date'],
      ['input-push-token on an update', { ...update, 'input-push-token': 1 }, 'input-push'],
      ['a stale date in milliseconds as text', { ...update, 'stale-date': '1795860000' }, 'stale-date'],
    ])('%s', (_what, aps, rule) => {
      expect(liveActivityProblem(aps, now)?.rule).toBe(rule);
    });

    it('judges channel requests: ids, storage policy, push type, and no start by broadcast', () => {
      const fake = new FakeApnsChannels();
      const allowed = () => true;
      const created = fake.answer('POST', '/1/apps/app/channels', {}, JSON.stringify({ 'message-storage-policy': 1, 'push-type': 'LiveActivity' }), allowed);
      const id = created.headers!['apns-channel-id'];
      expect(created.status).toBe(201);
      expect(
        fake.answer('POST', '/1/apps/app/channels', {}, JSON.stringify({ 'message-storage-policy': 2, 'push-type': 'LiveActivity' }), allowed).body,
      ).toEqual({ reason: 'BadMessageStoragePolicy' });
      expect(fake.answer('POST', '/1/apps/app/channels', {}, JSON.stringify({ 'message-storage-policy': 0, 'push-type': 'alert' }), allowed).body).toEqual({
        reason: 'InvalidPushType',
      });
      expect(fake.answer('GET', '/1/apps/app/channels', { 'apns-channel-id': id }, '', allowed)).toEqual({
        status: 200,
        body: { 'message-storage-policy': 1, 'push-type': 'LiveActivity' },
      });
      expect(fake.answer('GET', '/1/apps/app/all-channels', {}, '', allowed).body).toEqual({ channels: [id] });
      expect(fake.answer('GET', '/1/apps/app/channels', { 'apns-channel-id': 'nope' }, '', allowed).body).toEqual({ reason: 'BadChannelId' });
      expect(fake.answer('GET', '/1/apps/other/channels', { 'apns-channel-id': id }, '', allowed)).toEqual({
        status: 404,
        body: { reason: 'ChannelNotRegistered' },
      });
      const aps = { event: 'update', timestamp: Math.floor(Date.now() / 1000), 'content-state': {} };
      const cast = (headers: Record<string, string>, body: unknown) => fake.answer('POST', '/4/broadcasts/apps/app', headers, JSON.stringify(body), allowed);
      expect(cast({ 'apns-channel-id': id, 'apns-push-type': 'liveactivity' }, { aps }).status).toBe(200);
      expect(cast({ 'apns-push-type': 'liveactivity' }, { aps }).body).toEqual({ reason: 'MissingChannelId' });
      expect(cast({ 'apns-channel-id': id, 'apns-push-type': 'alert' }, { aps }).body).toEqual({ reason: 'InvalidPushType' });
      expect(cast({ 'apns-channel-id': id, 'apns-push-type': 'liveactivity' }, { aps: { ...aps, event: 'start' } }).body).toEqual({ reason: 'BadPayload' });
      expect(fake.answer('DELETE', '/1/apps/app/channels', { 'apns-channel-id': id }, '', allowed).status).toBe(204);
      expect(cast({ 'apns-channel-id': id, 'apns-push-type': 'liveactivity' }, { aps }).body).toEqual({ reason: 'ChannelNotRegistered' });
    });

    it('answers BadPayload and TopicDisallowed on the wire', async () => {
      const { pushToken, id } = await running();
      // The service never sends these: a direct HTTP/2 request shows the fake's answers.
      const key = generateApnsKey();
      fakes.apns.addKey(key);
      const jwt = await new SignJWT({})
        .setProtectedHeader({ alg: 'ES256', kid: key.keyId })
        .setIssuer(key.teamId)
        .setIssuedAt()
        .sign(createPrivateKey(key.privateKeyPem));
      const session = connect(fakes.apns.baseUrl, { ca: readFileSync(TEST_CA_PATH) });
      const ask = (topic: string, aps: unknown) =>
        new Promise<{ status: number; body: string }>((resolve, reject) => {
          const stream = session.request({
            ':method': 'POST',
            ':path': `/3/device/${pushToken}`,
            authorization: `bearer ${jwt}`,
            'apns-topic': topic,
            'apns-push-type': 'liveactivity',
          });
          let status = 0;
          let body = '';
          stream.on('response', (headers) => (status = Number(headers[':status'])));
          stream.on('data', (chunk: Buffer) => (body += chunk.toString()));
          stream.on('end', () => resolve({ status, body }));
          stream.on('error', reject);
          stream.end(JSON.stringify({ aps }));
        });
      const fresh = { event: 'update', timestamp: Math.floor(Date.now() / 1000), 'content-state': {} };
      try {
        expect(await ask(`${APNS_TOPIC}.push-type.liveactivity`, fresh)).toEqual({ status: 200, body: '' });
        expect(await ask(APNS_TOPIC, fresh)).toMatchObject({ status: 400, body: JSON.stringify({ reason: 'TopicDisallowed' }) });
        expect(await ask(`${APNS_TOPIC}.push-type.liveactivity`, { ...fresh, timestamp: Date.now() })).toMatchObject({
          status: 400,
          body: JSON.stringify({ reason: 'BadPayload' }),
        });
      } finally {
        session.close();
      }
      expect(id).toBeDefined();
    });
  });
});
