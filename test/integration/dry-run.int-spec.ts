import { WebhooksService } from '../../src/webhooks/webhooks.service';
import { apnsToken, bearer, fcmToken, newInstallation } from '../support/factories';
import { notificationCompleted } from '../support/notifications';
import { useAppWithFakeProviders } from '../support/use-app-with-fake-providers';
import { useTenantWithProviders } from '../support/use-tenant-with-providers';

/**
 * Dry runs (docs/api.md#dry-runs): everything but the delivery. FCM is asked with validate_only
 * (the fake answers as Google does), APNs and Web Push are not called, and the statistics, the
 * trace and the installations show what a real send would have met.
 */
describe('dry runs (docs/api.md#dry-runs)', () => {
  const stack = useAppWithFakeProviders();
  const { ctx } = stack;
  const tenant = useTenantWithProviders(stack, 'Dry');

  const send = (options: Record<string, unknown>, userIds: string[]) =>
    ctx
      .http()
      .post('/api/v1/notifications')
      .set(bearer(tenant.token))
      .send({ recipients: { user_ids: userIds }, notification: { title: 'Hello', body: 'World' }, options });
  const trace = async (id: string) =>
    (await ctx.http().get(`/api/v1/notifications/${id}/deliveries`).set(bearer(tenant.token)).expect(200)).body.data as Record<string, any>[];

  it('refuses a dry_run that is not a boolean', async () => {
    const res = await send({ dry_run: 'yes' }, ['someone']);
    expect([res.status, res.body.errors]).toEqual([422, { 'options.dry_run': ['The options.dry_run field must be true or false.'] }]);
  });

  it('ends every delivery without reaching a device: FCM validates, the others are not called', async () => {
    const user = `dry-${Date.now()}`;
    const ios = await newInstallation(ctx, tenant.token, { platform: 'ios', push_token: apnsToken(), user_id: user });
    const android = await newInstallation(ctx, tenant.token, { platform: 'android', push_token: fcmToken(), user_id: user });
    // A token no device has: FCM answers INVALID_ARGUMENT, even under validate_only.
    const madeUp = await newInstallation(ctx, tenant.token, { platform: 'android', push_token: '0'.repeat(64), user_id: user });
    const web = await newInstallation(ctx, tenant.token, {
      platform: 'web',
      push_token: undefined,
      web_push_subscription: stack.fakes.web.createSubscription(),
      user_id: user,
    });
    const denied = await newInstallation(ctx, tenant.token, { platform: 'ios', push_token: apnsToken(), user_id: user, permission: 'denied' });
    const webhook = await ctx.get(WebhooksService).create(tenant.appId, 'https://shop.example.com/hooks/push', 'notification.completed');
    stack.fakes.apns.reset();
    stack.fakes.fcm.reset();
    stack.fakes.web.reset();

    const res = await send({ dry_run: true, badge_increment: 1 }, [user]);
    expect(res.status).toBe(202);
    expect(res.body.data).toMatchObject({ dry_run: true, options: { dry_run: true, badge_increment: 1 } });
    const done = await notificationCompleted(ctx, tenant.token, res.body.data.id);

    expect(done.statistics).toMatchObject({ users: 1, installations: 5, accepted: 0, failed: 1, skipped: 4 });
    const ends = Object.fromEntries((await trace(done.id)).map((d) => [d.installation_id, [d.status, d.reason]]));
    expect(ends).toEqual({
      [ios.installation_id]: ['skipped', 'DryRun'],
      [android.installation_id]: ['skipped', 'DryRun'],
      [madeUp.installation_id]: ['failed', 'INVALID_ARGUMENT'],
      [web.installation_id]: ['skipped', 'DryRun'],
      [denied.installation_id]: ['skipped', 'PermissionDenied'],
    });

    // FCM saw both messages, validate-only; APNs and the push service saw nothing.
    expect(stack.fakes.fcm.requests.map((r) => [r.validateOnly, r.status]).sort()).toEqual([
      [true, 200],
      [true, 400],
    ]);
    expect(stack.fakes.fcm.deliveredCount()).toBe(0);
    expect(stack.fakes.apns.requests).toEqual([]);
    expect(stack.fakes.web.requests).toEqual([]);

    // The made-up token's installation is not invalidated, and no badge count moved.
    const rows = await ctx.db.query(`SELECT installation_id, invalidated_at FROM installations WHERE installation_id = ANY($1) ORDER BY installation_id`, [
      [madeUp.installation_id, ios.installation_id],
    ]);
    expect(rows.map((r: Record<string, unknown>) => [r.installation_id, r.invalidated_at])).toEqual(
      [madeUp.installation_id, ios.installation_id].sort().map((id) => [id, null]),
    );
    const iosRead = await ctx.http().get(`/api/v1/installations/${ios.installation_id}`).set(bearer(tenant.token)).expect(200);
    expect(iosRead.body.data.badge).toBe(ios.badge);

    // Completion is told to the app's webhooks as for any send.
    const messages = await ctx.db.query(`SELECT type FROM webhook_messages WHERE webhook_id = $1 AND subject_id = $2`, [webhook.id, done.id]);
    expect(messages).toEqual([{ type: 'notification.completed' }]);
  });

  it('a real send is not a dry run: dry_run false, and FCM is asked to deliver', async () => {
    const user = `real-${Date.now()}`;
    await newInstallation(ctx, tenant.token, { platform: 'android', push_token: fcmToken(), user_id: user });
    stack.fakes.fcm.reset();
    const res = await send({ dry_run: false }, [user]);
    expect(res.body.data.dry_run).toBe(false);
    const done = await notificationCompleted(ctx, tenant.token, res.body.data.id);
    expect(done.statistics).toMatchObject({ accepted: 1, skipped: 0 });
    expect(stack.fakes.fcm.requests.map((r) => r.validateOnly)).toEqual([false]);
  });
});
