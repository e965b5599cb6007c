import { MetricsService } from '../../src/metrics/metrics.service';
import { apnsToken, fcmToken, newApp, newInstallation, TestTenant } from '../support/factories';
import { notificationRowCompleted, sendToUsers } from '../support/notifications';
import { freePort, lines, ServiceProcess } from '../support/processes';
import { sample, scrape } from '../support/prometheus';
import { configureProviders } from '../support/providers';
import { fakeProvidersWorkerEnv, useApiWithFakeProviders } from '../support/use-api-with-fake-providers';
import { waitForQueues } from '../support/wait-for-queues';

jest.setTimeout(60_000);

/**
 * Failures visible without SQL (docs/operations.md "Logs" and "Metrics"), on the built service in
 * APP_MODE=worker as deployed: one JSON log line per completed notification with its counts and
 * its most frequent failure and skip reasons, skips counted by reason in /metrics, and transport
 * errors recorded by their cause (APNs pointed at a host that does not resolve: ENOTFOUND and its name).
 */
describe('a completed notification is visible in the worker log and metrics', () => {
  const stack = useApiWithFakeProviders();
  const { ctx } = stack;
  let workerPort: number;
  beforeAll(async () => {
    workerPort = await freePort();
  });

  let worker: ServiceProcess;
  let withCredentials: TestTenant;
  let withoutCredentials: TestTenant;

  beforeAll(async () => {
    withCredentials = await newApp(ctx, 'With credentials');
    await configureProviders(ctx, withCredentials.appId, stack.fakes);
    withoutCredentials = await newApp(ctx, 'Without credentials');
    worker = ServiceProcess.start(
      fakeProvidersWorkerEnv(ctx, stack.fakes, {
        PORT: String(await freePort()),
        METRICS_PORT: String(workerPort),
        // RFC 6761: `.invalid` never resolves. Two attempts, then the delivery fails with its cause.
        APNS_URL: 'https://apns.invalid',
        DELIVERY_MAX_ATTEMPTS: '2',
      }),
    );
    await worker.waitForOutput(/Started in worker mode/);
  });

  const send = (tenant: TestTenant, users: string[]) => sendToUsers(ctx, tenant.token, users, { title: 'Hi', body: 'Observed' });
  const completed = (id: string) => notificationRowCompleted(ctx, id);
  /** The worker's JSON lines about one notification's completion. */
  const completionLines = (id: string) =>
    lines(worker.stdout)
      .map((line) => JSON.parse(line))
      .filter((entry) => entry.msg === 'Notification completed' && entry.notification_id === id);

  it('logs one line per completed notification with its counts and top failure and skip reasons; rows keep ENOTFOUND and the host', async () => {
    const before = (await scrape(workerPort)).text;
    // Small sends (docs/api.md#small-sends) are fanned out, and their skips counted, by the API process.
    const apiBefore = await ctx.get(MetricsService).registry.metrics();
    // Two iOS installations (APNs unreachable), one Android and one Web accepted, one Android denied.
    await newInstallation(ctx, withCredentials.token, { platform: 'ios', push_token: apnsToken(), user_id: 'obs-1' });
    await newInstallation(ctx, withCredentials.token, { platform: 'ios', push_token: apnsToken(), user_id: 'obs-2' });
    await newInstallation(ctx, withCredentials.token, { platform: 'android', push_token: fcmToken(), user_id: 'obs-1' });
    await newInstallation(ctx, withCredentials.token, { platform: 'android', push_token: fcmToken(), user_id: 'obs-2', permission: 'denied' });
    await newInstallation(ctx, withCredentials.token, {
      platform: 'web',
      push_token: undefined,
      web_push_subscription: stack.fakes.web.createSubscription(),
      user_id: 'obs-2',
    });
    const mixed = await send(withCredentials, ['obs-1', 'obs-2']);
    // No credentials at all: every installation is skipped, and the fan-out completes it at once.
    await newInstallation(ctx, withoutCredentials.token, { platform: 'ios', push_token: apnsToken(), user_id: 'bare' });
    await newInstallation(ctx, withoutCredentials.token, { platform: 'android', push_token: fcmToken(), user_id: 'bare' });
    const skippedAll = await send(withoutCredentials, ['bare']);

    expect(await completed(mixed)).toMatchObject({ stat_installations: 5, stat_accepted: 2, stat_failed: 2, stat_skipped: 1 });
    await completed(skippedAll);
    // The delivery rows keep the cause of the transport error, not the HTTP/2 stream's cancellation.
    expect(await ctx.db.query(`SELECT status, reason, attempts FROM deliveries WHERE notification_id = $1 AND platform = 'ios'`, [mixed])).toEqual([
      { status: 'failed', reason: 'ENOTFOUND apns.invalid', attempts: 2 },
      { status: 'failed', reason: 'ENOTFOUND apns.invalid', attempts: 2 },
    ]);

    await worker.waitForOutput(new RegExp(`"notification_id":"${mixed}"`));
    await worker.waitForOutput(new RegExp(`"notification_id":"${skippedAll}"`));
    await waitForQueues(ctx);
    const [mixedLine] = completionLines(mixed);
    expect(mixedLine).toMatchObject({
      level: 40, // warn: something failed
      context: 'CompletionReportService',
      app_id: withCredentials.appId,
      installations: 5,
      accepted: 2,
      failed: 2,
      skipped: 1,
      duration_ms: expect.any(Number),
      failure_reasons: [{ reason: 'ENOTFOUND apns.invalid', count: 2 }],
      skip_reasons: [{ reason: 'PermissionDenied', count: 1 }],
    });
    expect(completionLines(skippedAll)).toEqual([
      expect.objectContaining({
        level: 30, // info: nothing failed
        app_id: withoutCredentials.appId,
        installations: 2,
        accepted: 0,
        failed: 0,
        skipped: 2,
        failure_reasons: [],
        skip_reasons: [{ reason: 'NoCredentials', count: 2 }],
      }),
    ]);
    expect(completionLines(mixed)).toHaveLength(1);

    // Skips by provider and reason on the worker's /metrics, and the API's for the small sends' fan-out, summed as Prometheus would.
    const after = (await scrape(workerPort)).text;
    const apiAfter = await ctx.get(MetricsService).registry.metrics();
    const skipped = (text: string, labels: Record<string, string>) => sample(text, 'pns_deliveries_skipped_total', labels) ?? 0;
    const moved = (labels: Record<string, string>) => skipped(after, labels) - skipped(before, labels) + skipped(apiAfter, labels) - skipped(apiBefore, labels);
    expect({
      apnsNoCredentials: moved({ provider: 'apns', reason: 'NoCredentials' }),
      fcmNoCredentials: moved({ provider: 'fcm', reason: 'NoCredentials' }),
      fcmPermissionDenied: moved({ provider: 'fcm', reason: 'PermissionDenied' }),
    }).toEqual({ apnsNoCredentials: 1, fcmNoCredentials: 1, fcmPermissionDenied: 1 });
    expect(after).toContain('# TYPE pns_deliveries_skipped_total counter');
    expect(sample(after, 'pns_deliveries_total', { provider: 'apns', outcome: 'failed' })).toBe(2);
  });
});
