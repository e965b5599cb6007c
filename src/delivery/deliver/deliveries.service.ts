import type { NotificationContentRow } from '../../common/notification';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { mapLimit } from '../../common/map-limit';
import { DEFAULT_PUSH_PROVIDER, PushProviderName, pushProviderOf } from '../../common/platform';
import { CREDENTIALS_OF, SkipReason } from '../../common/vocabulary';
import type { CarriedContent } from '../../common/queues';
import { EnvironmentVariables } from '../../config/env';
import { CredentialsService, isConfigured } from '../../credentials/credentials.service';
import { ProviderCredentials } from '../../credentials/provider-credentials';
import { MetricsService } from '../../metrics/metrics.service';
import { DeliverJobs } from '../../queue/jobs';
import { PaceLimiter } from '../../queue/pace-limiter';
import { Clock } from '../../common/time';
import { throttleBatchSize } from '../throttle';
import {
  BadgeChange,
  ClaimedRow,
  DeliveriesRepository,
  Invalidation,
  NO_BADGE_CHANGE,
  pushContent,
  RecordedOutcome,
  variantContents,
} from './deliveries.repository';
import { OutcomeRecorder } from './outcome-recorder';
import { contentFor, isBackground, isDryRun, PAYLOAD_LIMITS, payloadSize, PushContent } from '../providers/payloads';
import { rendered } from '../providers/personalize';
import { LiquidRenderError } from '../../common/liquid';
import { DeliveryOutcome, PUSH_PROVIDERS, PushProvider } from '../providers/push-provider';
import { retryDelayMs } from './retry-policy';
import { StoreOutage } from './store-outage';

type Final = RecordedOutcome;
/** A row skipped when it was claimed: its installation changed since the fan-out. */
type Skipped = Final & { status: 'skipped'; reason: SkipReason };

const CONTENT_CACHE_SIZE = 500;

const DRY_RUN: Skipped = { status: 'skipped', reason: SkipReason.DryRun, nextAttemptAt: null };

/** A dry run's answer (docs/api.md#dry-runs): valid is skipped as DryRun; an invalidating one fails but condemns no token. */
export function dryRunOutcome(outcome: DeliveryOutcome): DeliveryOutcome | Skipped {
  if (outcome.kind === 'accepted') return DRY_RUN;
  if (outcome.kind === 'invalid') return { kind: 'failed', reason: outcome.reason };
  return outcome;
}

/** What a send does to its iOS installations' badge counts: nothing for a silent one, which shows no badge. */
export function badgeChange(content: PushContent): BadgeChange {
  const options = content.options;
  // A dry run shows nothing, so no count moves either (docs/api.md#dry-runs).
  if (!options || isBackground(content) || isDryRun(content)) return NO_BADGE_CHANGE;
  if (options.badge !== undefined) return { set: options.badge, add: 0 };
  if (options.badge_increment !== undefined) return { set: null, add: options.badge_increment };
  return NO_BADGE_CHANGE;
}

/** `content` rendered for the claimed installation, or why it is skipped (docs/api.md#liquid). */
export function personalizedFor(content: PushContent, variables: Record<string, unknown> | null, row: ClaimedRow): PushContent | Skipped {
  let out: PushContent;
  try {
    out = rendered(content, variables, {
      ...(row.personal ?? { user_id: null, app_version: null, properties: null }),
      locale: row.locale,
      platform: row.platform,
    });
  } catch (error) {
    if (error instanceof LiquidRenderError) return { status: 'skipped', reason: SkipReason.RenderFailed, nextAttemptAt: null };
    throw error;
  }
  if (payloadSize(out, row.platform) > PAYLOAD_LIMITS[row.platform]) return { status: 'skipped', reason: SkipReason.PayloadTooLarge, nextAttemptAt: null };
  return out;
}

/** Sends one batch: claims its due rows, sends them with bounded concurrency, and hands each outcome to the OutcomeRecorder. */
@Injectable()
export class DeliveriesService {
  private readonly logger = new Logger('Delivery');
  private readonly contents = new Map<string, NotificationContentRow>();
  private readonly byProvider: Map<PushProviderName, PushProvider>;

  constructor(
    private readonly deliveries: DeliveriesRepository,
    private readonly outcomes: OutcomeRecorder,
    private readonly outage: StoreOutage,
    private readonly deliverJobs: DeliverJobs,
    private readonly credentials: CredentialsService,
    private readonly metrics: MetricsService,
    @Inject(PUSH_PROVIDERS) providers: PushProvider[],
    private readonly config: EnvironmentVariables,
    private readonly pace: PaceLimiter,
    private readonly clock: Clock,
  ) {
    this.byProvider = new Map(providers.map((p) => [DEFAULT_PUSH_PROVIDER[p.platform], p]));
    // UnifiedPush is Web Push to the device's distributor: one implementation (docs/api.md#unifiedpush).
    const webPush = this.byProvider.get('web_push');
    if (webPush) this.byProvider.set('unifiedpush', webPush);
  }

  /** `reclaim`: the job ran before and its worker died, so its own "sending" rows are taken back. */
  async deliverBatch(
    notificationId: string,
    batch: number,
    reclaim = false,
    /** A throttled send's batch back for the turn it was given. */
    paced: false | { turnAt?: number } = false,
    /** A small send's batch (docs/api.md#small-sends): its outcomes are written at once (OutcomeRecorder.record). */
    urgent = false,
  ): Promise<{ sent: number; waitMs?: number; turnAt?: number }> {
    // Read first (cached per process): its start names the partition of the rows to claim.
    const notification = await this.outage.retrying('reading a notification', () => this.content(notificationId));
    const startedAt = notification?.processing_started_at;
    if (!notification || !startedAt) return { sent: 0 };
    const appId = notification.app_id;
    const content = pushContent(notification);
    const variants = variantContents(notification);
    const badge = badgeChange(content);
    // A throttled send takes a batch's share of its rate first, and gives back what the batch did not use.
    const throttle = content.options?.throttle_per_minute;
    const share = throttle ? throttleBatchSize(throttle, this.config.DELIVERY_BATCH_SIZE) : 0;
    // One back for its turn goes, unless so late that it would crowd the next turns (docs/api.md#pacing): it takes a new one.
    if (throttle) {
      const now = this.clock.now();
      const kept = paced && (paced.turnAt === undefined || PaceLimiter.turnKept(paced.turnAt, throttle, share, now));
      const waitMs = kept ? 0 : await this.pace.take(notificationId, throttle, share, now);
      if (waitMs > 0) return { sent: 0, waitMs, turnAt: now + waitMs };
    }
    const claimed = await this.outage.retrying('claiming a batch', () =>
      this.deliveries.claim(
        notificationId,
        startedAt,
        batch,
        reclaim,
        badge,
        content.options?.live_activity?.attributes_type ?? null,
        content.options?.widgets === true,
        content.personalization !== undefined || (variants ?? []).some((variant) => variant.personalization !== undefined),
      ),
    );
    if (throttle) await this.pace.giveBack(notificationId, throttle, share - claimed.length);
    if (claimed.length === 0) {
      // Nothing to claim: a duplicate job, or a cancelled notification whose rows are skipped now (docs/api.md#scheduling).
      await this.outage.retrying('skipping a cancelled batch', () => this.deliveries.cancelLeftovers(notificationId, batch));
      return { sent: 0 };
    }

    // Rows a dead worker left "sending" may have reached their devices: said, not hidden (docs/operations.md).
    const again = reclaim ? claimed.filter((row) => row.attempts > 1).length : 0;
    if (again > 0) this.logger.warn(`Notification ${notificationId} batch ${batch}: ${again} messages sent again after a worker stopped before recording them`);
    const credentials = await this.outage.retrying('reading credentials', () => this.credentials.forDelivery(appId));
    const writes = new Set<Promise<void>>();
    let retryDue = 0;
    await mapLimit(claimed, this.config.DELIVERY_CONCURRENCY, async (row) => {
      if (this.outage.active) await this.outage.over();
      await this.outcomes.room();
      // A row sends its variant's texts (docs/api.md#variants).
      const outcome = await this.sendOne(credentials, variants && row.variant !== null ? (variants[row.variant] ?? content) : content, row);
      const final = this.finalize(row, outcome);
      if (final.nextAttemptAt) retryDue = Math.max(retryDue, final.nextAttemptAt.getTime());
      writes.add(
        this.outcomes.record(
          {
            notificationId,
            notificationStartedAt: startedAt,
            installationId: row.installation_id,
            marketing: content.options?.category === 'marketing',
            outcome: final,
            invalidation: this.invalidation(row, outcome),
          },
          urgent,
        ),
      );
    });
    // The job ends once its outcomes are written: its retry must find its rows pending again.
    await Promise.all(writes);

    if (retryDue > 0) {
      const attempt = Math.max(...claimed.map((r) => r.attempts));
      await this.deliverJobs.addRetry(notificationId, batch, attempt, retryDue - Date.now());
    }
    return { sent: claimed.length };
  }

  private async sendOne(credentials: ProviderCredentials, content: PushContent, row: ClaimedRow): Promise<DeliveryOutcome | Skipped> {
    if (row.deleted_at) return { status: 'skipped', reason: SkipReason.Deleted, nextAttemptAt: null };
    if (row.invalidated_at) return { status: 'skipped', reason: SkipReason.Invalidated, nextAttemptAt: null };
    if (!row.push_token && !row.web_push_subscription) return { status: 'skipped', reason: SkipReason.NoToken, nextAttemptAt: null };
    // A Live Activity start goes to the type's push-to-start token (docs/api.md#live-activity-starts), a widget push to the widget token (docs/api.md#widgets).
    const start = content.options?.live_activity;
    const widgets = content.options?.widgets === true;
    const pushToken = start ? row.start_token : widgets ? row.widget_token : row.push_token;
    if (start && !pushToken) return { status: 'skipped', reason: SkipReason.NoLiveActivityToken, nextAttemptAt: null };
    if (widgets && !pushToken) return { status: 'skipped', reason: SkipReason.NoWidgetToken, nextAttemptAt: null };
    const pushProvider = pushProviderOf(row.platform, row.web_push_subscription !== null);
    const provider = this.byProvider.get(pushProvider);
    if (!provider || !isConfigured(credentials, pushProvider)) return { status: 'skipped', reason: SkipReason.NoCredentials, nextAttemptAt: null };
    const localized = contentFor(content, row.locale);
    // Localized first, then rendered for this installation (docs/api.md#liquid).
    const built = content.personalization ? personalizedFor(localized, content.personalization.variables, row) : localized;
    if ('status' in built) return built;
    const dryRun = isDryRun(content);
    if (dryRun && !provider.validatesDryRun) return DRY_RUN;
    const started = performance.now();
    let outcome = await provider.send(credentials, built, {
      installationId: row.installation_id,
      pushToken,
      webPushSubscription: row.web_push_subscription,
      pushProvider,
      // The count this installation reached (docs/api.md#badge-arithmetic) replaces the increment.
      badge: built.options?.badge_increment !== undefined ? row.badge : null,
    });
    // A dead start or widget token says nothing of the device token: the installation stays valid.
    if ((start || widgets) && outcome.kind === 'invalid') outcome = { kind: 'failed', reason: outcome.reason };
    this.metrics.providerLatency.observe({ provider: CREDENTIALS_OF[pushProvider] }, (performance.now() - started) / 1000);
    return dryRun ? dryRunOutcome(outcome) : outcome;
  }

  private finalize(row: ClaimedRow, outcome: DeliveryOutcome | Skipped): Final {
    const provider = CREDENTIALS_OF[pushProviderOf(row.platform, row.web_push_subscription !== null)];
    if ('status' in outcome) {
      this.metrics.recordSkipped(provider, outcome.reason);
      return outcome;
    }
    switch (outcome.kind) {
      case 'accepted':
        this.metrics.recordDelivery(provider, 'accepted');
        return { status: 'accepted', reason: null, nextAttemptAt: null, providerMessageId: outcome.providerMessageId ?? null };
      case 'invalid':
        this.metrics.recordDelivery(provider, 'invalidated');
        return { status: 'failed', reason: outcome.reason, nextAttemptAt: null };
      case 'failed':
        this.metrics.recordDelivery(provider, 'failed');
        return { status: 'failed', reason: outcome.reason, nextAttemptAt: null };
      case 'retry': {
        const config = this.config;
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

  /** The token a provider refused, to be invalidated if the installation still has it. */
  private invalidation(row: ClaimedRow, outcome: DeliveryOutcome | Skipped): Invalidation | undefined {
    if ('status' in outcome || outcome.kind !== 'invalid') return undefined;
    return { installationId: row.installation_id, reason: outcome.reason, token: row.push_token ?? row.web_push_subscription?.endpoint ?? '' };
  }

  /** A small send's notification as its batch's job carries it (docs/api.md#small-sends): cached, so its batch is sent without reading it again. */
  remember(notificationId: string, carried: CarriedContent): void {
    this.cache(notificationId, { ...carried, processing_started_at: new Date(carried.processing_started_at) });
  }

  private async content(notificationId: string): Promise<NotificationContentRow | undefined> {
    const cached = this.contents.get(notificationId);
    if (cached) return cached;
    const entry = await this.deliveries.content(notificationId);
    // Cached once its fan-out has started: nothing in it changes after.
    if (entry?.processing_started_at) this.cache(notificationId, entry);
    return entry;
  }

  private cache(notificationId: string, entry: NotificationContentRow): void {
    if (this.contents.size >= CONTENT_CACHE_SIZE) this.contents.delete(this.contents.keys().next().value!);
    this.contents.set(notificationId, entry);
  }
}
