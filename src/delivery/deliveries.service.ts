import { InjectQueue } from '@nestjs/bullmq';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { Queue } from 'bullmq';
import { DataSource } from 'typeorm';
import { mapLimit } from '../common/map-limit';
import { PushContent } from '../common/push-payloads';
import { DELIVER_QUEUE, DeliverJob, deliverJobId } from '../common/queues';
import { env } from '../config/env';
import { CredentialsService } from '../credentials/credentials.service';
import { Platform, WebPushSubscription } from '../installations/installation.entity';
import { MetricsService } from '../metrics/metrics.service';
import { NotificationRow, toPushContent } from '../notifications/notification.resource';
import { DeliveryOutcome, ProviderCredentials, PUSH_PROVIDERS, PushProvider } from './providers/push-provider';
import { retryDelayMs } from './retry-policy';

interface ClaimedRow {
  installation_id: string;
  attempts: number;
  platform: Platform;
  push_token: string | null;
  web_push_subscription: WebPushSubscription | null;
  deleted_at: Date | null;
  invalidated_at: Date | null;
}

/**
 * A batch's outcomes, and how many rows each status gained. Only rows still "sending" are ours:
 * the counters move exactly with these transitions. Each row finds its outcome in $3, a JSON object
 * keyed by installation id, rather than through a join with the outcome list: deliveries keep no
 * index on status, so the planner cannot know how many rows are "sending", and with a join it
 * was seen to compare every row of the batch with every outcome (500 x 500 per batch, 50 to 400 ms).
 * The batch number keeps the scan to the batch's own rows (its index), however big the send.
 */
export const RECORD_OUTCOMES_SQL = `
  WITH updated AS (
    UPDATE deliveries d SET
      status = $3::jsonb -> d.installation_id::text ->> 0,
      reason = $3::jsonb -> d.installation_id::text ->> 1,
      next_attempt_at = ($3::jsonb -> d.installation_id::text ->> 2)::timestamptz,
      updated_at = now()
    WHERE d.notification_id = $1 AND d.batch = $4 AND d.installation_id = ANY($2::uuid[]) AND d.status = 'sending'
    RETURNING d.status
  )
  SELECT count(*) FILTER (WHERE status = 'accepted')::int AS accepted,
         count(*) FILTER (WHERE status = 'failed')::int AS failed,
         count(*) FILTER (WHERE status = 'skipped')::int AS skipped
  FROM updated`;

type Final = { status: 'accepted' | 'failed' | 'skipped' | 'pending'; reason: string | null; nextAttemptAt: Date | null };

const PROVIDER_NAMES: Record<Platform, string> = { ios: 'apns', android: 'fcm', web: 'web_push' };
const CONTENT_CACHE_SIZE = 500;

/**
 * Sends one batch of a notification: claims its due rows (pending → sending), sends each
 * through its provider with bounded concurrency, then records every outcome, the invalidations
 * and the statistics in one transaction. Rows are claimed atomically, so a duplicate job finds
 * nothing to do; counters move only with the row transitions, so each installation counts once.
 */
@Injectable()
export class DeliveriesService {
  private readonly logger = new Logger(DeliveriesService.name);
  private readonly contents = new Map<string, { appId: string; content: PushContent }>();
  private readonly byPlatform: Map<Platform, PushProvider>;

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    @InjectQueue(DELIVER_QUEUE) private readonly deliverQueue: Queue<DeliverJob>,
    private readonly credentials: CredentialsService,
    private readonly metrics: MetricsService,
    @Inject(PUSH_PROVIDERS) providers: PushProvider[],
  ) {
    this.byPlatform = new Map(providers.map((p) => [p.platform, p]));
  }

  /** `reclaim`: the job ran before and its worker died, so its own "sending" rows are taken back. */
  async deliverBatch(notificationId: string, batch: number, reclaim = false): Promise<{ sent: number }> {
    const claimed: ClaimedRow[] = (
      await this.db.query(
        `UPDATE deliveries d SET status = 'sending', attempts = d.attempts + 1, updated_at = now()
         FROM installations i
         WHERE d.notification_id = $1 AND d.batch = $2 AND i.id = d.installation_id
           AND (d.status = 'pending' OR ($3::boolean AND d.status = 'sending'))
           AND (d.next_attempt_at IS NULL OR d.next_attempt_at <= now() + interval '1 second')
         RETURNING d.installation_id, d.attempts, i.platform, i.push_token, i.web_push_subscription, i.deleted_at, i.invalidated_at`,
        [notificationId, batch, reclaim],
      )
    )[0];
    if (claimed.length === 0) return { sent: 0 };

    const { appId, content } = await this.content(notificationId);
    const credentials = await this.credentials.forDelivery(appId);
    const outcomes = await mapLimit(claimed, env().DELIVERY_CONCURRENCY, (row) => this.sendOne(credentials, content, row));
    const finals = claimed.map((row, i) => this.finalize(row, outcomes[i]));
    await this.record(notificationId, batch, claimed, outcomes, finals);

    const retries = finals.filter((f) => f.status === 'pending');
    if (retries.length > 0) {
      const due = Math.max(...retries.map((f) => f.nextAttemptAt!.getTime()));
      const attempt = Math.max(...claimed.map((r) => r.attempts));
      await this.deliverQueue.add(
        'deliver',
        { notificationId, batch },
        { jobId: deliverJobId(notificationId, batch, `a${attempt}`), delay: Math.max(0, due - Date.now()) },
      );
    }
    return { sent: claimed.length };
  }

  private async sendOne(credentials: ProviderCredentials, content: PushContent, row: ClaimedRow): Promise<DeliveryOutcome | Final> {
    // The installation may have changed since the fan-out decided to send to it.
    if (row.deleted_at) return { status: 'skipped', reason: 'Deleted', nextAttemptAt: null };
    if (row.invalidated_at) return { status: 'skipped', reason: 'Invalidated', nextAttemptAt: null };
    if (!row.push_token && !row.web_push_subscription) return { status: 'skipped', reason: 'NoToken', nextAttemptAt: null };
    const provider = this.byPlatform.get(row.platform);
    if (!provider || !provider.configured(credentials)) return { status: 'skipped', reason: 'NoCredentials', nextAttemptAt: null };
    const started = process.hrtime.bigint();
    const outcome = await provider.send(credentials, content, {
      installationId: row.installation_id,
      pushToken: row.push_token,
      webPushSubscription: row.web_push_subscription,
    });
    this.metrics.providerLatency.observe({ provider: PROVIDER_NAMES[row.platform] }, Number(process.hrtime.bigint() - started) / 1e9);
    return outcome;
  }

  private finalize(row: ClaimedRow, outcome: DeliveryOutcome | Final): Final {
    if ('status' in outcome) return outcome;
    const provider = PROVIDER_NAMES[row.platform];
    switch (outcome.kind) {
      case 'accepted':
        this.metrics.recordDelivery(provider, 'accepted');
        return { status: 'accepted', reason: null, nextAttemptAt: null };
      case 'invalid':
        this.metrics.recordDelivery(provider, 'invalidated');
        return { status: 'failed', reason: outcome.reason, nextAttemptAt: null };
      case 'failed':
        this.metrics.recordDelivery(provider, 'failed');
        return { status: 'failed', reason: outcome.reason, nextAttemptAt: null };
      case 'retry': {
        const config = env();
        if (row.attempts >= config.DELIVERY_MAX_ATTEMPTS) {
          this.metrics.recordDelivery(provider, 'failed');
          return { status: 'failed', reason: outcome.reason, nextAttemptAt: null };
        }
        this.metrics.recordDelivery(provider, 'retried');
        const delay = retryDelayMs(row.attempts, config.DELIVERY_RETRY_BASE_MS, config.DELIVERY_RETRY_MAX_MS, outcome.retryAfterMs);
        return { status: 'pending', reason: outcome.reason, nextAttemptAt: new Date(Date.now() + delay) };
      }
    }
  }

  private async record(notificationId: string, batch: number, rows: ClaimedRow[], outcomes: (DeliveryOutcome | Final)[], finals: Final[]): Promise<void> {
    const invalid = rows
      .map((row, i) => ({ row, outcome: outcomes[i] }))
      .filter(({ outcome }) => !('status' in outcome) && outcome.kind === 'invalid');
    await this.db.transaction(async (manager) => {
      const outcomesById = Object.fromEntries(rows.map((r, i) => [r.installation_id, [finals[i].status, finals[i].reason, finals[i].nextAttemptAt]]));
      const [counts] = await manager.query(RECORD_OUTCOMES_SQL, [notificationId, rows.map((r) => r.installation_id), JSON.stringify(outcomesById), batch]);
      if (invalid.length > 0) {
        // Invalidate only if the token we used is still the installation's token.
        await manager.query(
          `UPDATE installations i SET invalidated_at = now(), invalid_reason = u.reason
           FROM unnest($1::uuid[], $2::text[], $3::text[]) AS u(id, reason, token)
           WHERE i.id = u.id AND i.invalidated_at IS NULL
             AND (i.push_token = u.token OR i.web_push_subscription ->> 'endpoint' = u.token)`,
          [
            invalid.map(({ row }) => row.installation_id),
            invalid.map(({ outcome }) => (outcome as { reason: string }).reason.slice(0, 255)),
            invalid.map(({ row }) => row.push_token ?? row.web_push_subscription?.endpoint ?? ''),
          ],
        );
      }
      if (counts.accepted + counts.failed + counts.skipped > 0) {
        await manager.query(
          `UPDATE notifications SET
             stat_accepted = stat_accepted + $2, stat_failed = stat_failed + $3, stat_skipped = stat_skipped + $4,
             completed_at = CASE
               WHEN completed_at IS NULL AND fanned_out_at IS NOT NULL
                 AND stat_accepted + $2 + stat_failed + $3 + stat_skipped + $4 >= stat_installations THEN now()
               ELSE completed_at END
           WHERE id = $1`,
          [notificationId, counts.accepted, counts.failed, counts.skipped],
        );
      }
    });
  }

  /** Notifications never change once accepted, so their content is cached per process. */
  private async content(notificationId: string): Promise<{ appId: string; content: PushContent }> {
    const cached = this.contents.get(notificationId);
    if (cached) return cached;
    const [row]: (NotificationRow & { app_id: string })[] = await this.db.query(
      `SELECT id, app_id, title, body, image_url, action_url, data, options FROM notifications WHERE id = $1`,
      [notificationId],
    );
    if (!row) throw new Error(`Notification ${notificationId} not found`);
    const entry = { appId: row.app_id, content: toPushContent(row) };
    if (this.contents.size >= CONTENT_CACHE_SIZE) this.contents.delete(this.contents.keys().next().value!);
    this.contents.set(notificationId, entry);
    return entry;
  }
}
