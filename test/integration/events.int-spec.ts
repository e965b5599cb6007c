import { apnsToken, bearer, fcmToken, newApp, newInstallation, TestTenant } from '../support/factories';
import { notificationCompleted, readNotification } from '../support/notifications';
import { useTenantWithProviders } from '../support/use-tenant-with-providers';
import { waitFor } from '../support/wait-for';
import { useAppWithFakeProviders } from '../support/use-app-with-fake-providers';

/**
 * Client events count only for installations the notification was accepted for or is being sent
 * to (docs/api.md#reads-and-events): a device that was skipped, failed or never attempted cannot move
 * `received`, `displayed` or `opened`. And the default permission, `unknown`, is sent to (4.1).
 */
describe('client events count only for installations that were sent the notification (docs/api.md#reads-and-events)', () => {
  const stack = useAppWithFakeProviders();
  const { ctx } = stack;

  const send = (tenant: TestTenant, users: string[]) =>
    ctx
      .http()
      .post('/api/v1/notifications')
      .set(bearer(tenant.token))
      .send({ recipients: { user_ids: users }, notification: { title: 'Hello', body: 'World' } })
      .expect(202);
  const read = (tenant: TestTenant, id: string) => readNotification(ctx, tenant.token, id);
  const completed = (tenant: TestTenant, id: string) => notificationCompleted(ctx, tenant.token, id);
  const event = (tenant: TestTenant, id: string, installationId: string, type = 'received') =>
    ctx.http().post(`/api/v1/notifications/${id}/events`).set(bearer(tenant.token)).send({ installation_id: installationId, type });

  it('an app without credentials: every installation skipped (NoCredentials), every event 422, statistics unchanged', async () => {
    const tenant = await newApp(ctx, 'No credentials');
    const installations = [
      await newInstallation(ctx, tenant.token, { platform: 'ios', push_token: apnsToken(), user_id: 'nocred' }),
      await newInstallation(ctx, tenant.token, { platform: 'android', push_token: fcmToken(), user_id: 'nocred' }),
      await newInstallation(ctx, tenant.token, {
        platform: 'web',
        push_token: undefined,
        web_push_subscription: stack.fakes.web.createSubscription(),
        user_id: 'nocred',
      }),
    ];
    const id = (await send(tenant, ['nocred'])).body.data.id;
    const done = await completed(tenant, id);
    expect(done.statistics).toMatchObject({ installations: 3, accepted: 0, skipped: 3 });

    for (const type of ['received', 'displayed', 'opened']) {
      const res = await event(tenant, id, installations[0].installation_id, type);
      expect(res.status).toBe(422);
      expect(res.body).toEqual({
        message: 'The notification was not sent to this installation (skipped: NoCredentials), so its events are not counted.',
        errors: { installation_id: ['The notification was not sent to this installation (skipped: NoCredentials), so its events are not counted.'] },
      });
    }
    expect((await event(tenant, id, installations[2].installation_id, 'opened')).status).toBe(422);
    expect((await read(tenant, id)).statistics).toEqual(done.statistics);
    expect(await ctx.db.query(`SELECT * FROM notification_events WHERE notification_id = $1`, [id])).toEqual([]);
  });

  describe('an app with credentials', () => {
    const tenant = useTenantWithProviders(stack, 'With credentials');

    it('an installation registered without a permission is "unknown", is sent to, and its events count', async () => {
      const token = apnsToken();
      const installation = await newInstallation(ctx, tenant.token, { platform: 'ios', push_token: token, user_id: 'default-permission' });
      expect(installation.permission).toBe('unknown');
      const id = (await send(tenant, ['default-permission'])).body.data.id;
      const done = await completed(tenant, id);
      expect(done.statistics).toMatchObject({ installations: 1, accepted: 1, skipped: 0 });
      expect(stack.fakes.apns.requests.filter((r) => r.token === token && r.status === 200)).toHaveLength(1);

      const res = await event(tenant, id, installation.installation_id, 'opened');
      expect(res.status).toBe(202);
      expect(res.body.data.counted).toBe(true);
      expect((await read(tenant, id)).statistics).toMatchObject({ accepted: 1, opened: 1 });
    });

    it('in one send: the accepted installation counts; the failed and the skipped ones are 422 and move nothing', async () => {
      const accepted = await newInstallation(ctx, tenant.token, { platform: 'ios', push_token: apnsToken(), user_id: 'mixed' });
      const refusedToken = apnsToken();
      const failed = await newInstallation(ctx, tenant.token, { platform: 'ios', push_token: refusedToken, user_id: 'mixed' });
      stack.fakes.apns.script(refusedToken, [{ status: 400, reason: 'PayloadTooLarge' }]);
      const denied = await newInstallation(ctx, tenant.token, { platform: 'android', push_token: fcmToken(), user_id: 'mixed', permission: 'denied' });
      const id = (await send(tenant, ['mixed'])).body.data.id;
      const done = await completed(tenant, id);
      expect(done.statistics).toMatchObject({ installations: 3, accepted: 1, failed: 1, skipped: 1 });

      const ok = await event(tenant, id, accepted.installation_id);
      expect(ok.status).toBe(202);
      expect(ok.body.data.counted).toBe(true);
      const refused = await event(tenant, id, failed.installation_id);
      expect(refused.status).toBe(422);
      expect(refused.body.errors).toEqual({
        installation_id: ['The notification was not delivered to this installation (failed: PayloadTooLarge), so its events are not counted.'],
      });
      const skipped = await event(tenant, id, denied.installation_id);
      expect(skipped.status).toBe(422);
      expect(skipped.body.errors.installation_id[0]).toBe(
        'The notification was not sent to this installation (skipped: PermissionDenied), so its events are not counted.',
      );
      const stranger = await newInstallation(ctx, tenant.token, { platform: 'ios', push_token: apnsToken(), user_id: 'stranger' });
      expect((await event(tenant, id, stranger.installation_id)).body.errors).toEqual({
        installation_id: ['The installation_id is not a target of this notification.'],
      });
      expect((await read(tenant, id)).statistics).toMatchObject({ accepted: 1, failed: 1, skipped: 1, received: 1 });
    });

    it('a delivery waiting for its retry (pending after an attempt) counts: the device may already have it', async () => {
      const token = apnsToken();
      const installation = await newInstallation(ctx, tenant.token, { platform: 'ios', push_token: token, user_id: 'retrying' });
      // A long Retry-After keeps the row pending, with one attempt, for the rest of the test.
      stack.fakes.apns.script(token, [{ status: 503, reason: 'ServiceUnavailable', retryAfter: 600 }]);
      const id = (await send(tenant, ['retrying'])).body.data.id;
      await waitFor(async () => {
        const [row] = await ctx.db.query(`SELECT status, attempts FROM deliveries WHERE notification_id = $1`, [id]);
        return row?.status === 'pending' && row.attempts === 1 ? row : null;
      }, 'the delivery to wait for its retry');
      const res = await event(tenant, id, installation.installation_id);
      expect(res.status).toBe(202);
      expect(res.body.data.counted).toBe(true);
      expect((await read(tenant, id)).statistics).toMatchObject({ accepted: 0, received: 1 });
    });

    // Each state a delivery row can be in, set directly: "sending" lasts only while the provider
    // is asked, and "pending" without an attempt only until the first delivery job runs.
    it.each([
      ['accepted', 0, 202],
      ['sending', 1, 202],
      ['pending', 1, 202],
      ['pending', 0, 422],
      ['failed', 5, 422],
      ['skipped', 0, 422],
    ] as const)('a delivery %s with %d attempts: %d', async (status, attempts, expected) => {
      const installation = await newInstallation(ctx, tenant.token, { platform: 'ios', push_token: apnsToken(), user_id: `state-${status}-${attempts}` });
      const id = (await send(tenant, [`state-${status}-${attempts}`])).body.data.id;
      await completed(tenant, id);
      await ctx.db.query(`UPDATE deliveries SET status = $2, attempts = $3, reason = NULL WHERE notification_id = $1`, [id, status, attempts]);
      const res = await event(tenant, id, installation.installation_id, 'displayed');
      expect(res.status).toBe(expected);
      expect((await read(tenant, id)).statistics.displayed).toBe(expected === 202 ? 1 : 0);
    });
  });
});
