import { Injectable } from '@nestjs/common';
import { NotificationFailureReason, PROVIDER_OF } from '../../common/vocabulary';
import { AudienceTimedOutError } from '../../common/errors';
import { EnvironmentVariables } from '../../config/env';
import { CredentialsService } from '../../credentials/credentials.service';
import { MetricsService } from '../../metrics/metrics.service';
import { DeliverJobs } from '../../queue/jobs';
import { CompletionReportService } from '../completion-report.service';
import { DeliveriesRepository } from '../deliver/deliveries.repository';
import { Clock } from '../../common/time';
import { FairSharesService, laneOf } from '../fair-shares/fair-shares.service';
import { ChunkParams, ChunkResult, FanOutRepository, FilledBatch, StartedRow, wantedPlatforms } from './fan-out.repository';
import { batchIntervalMs, dueTimes, fanOutResumesAt, QuietWindow, throttleBatchSize, throttleChunkSize } from './pacing';
import { SILENTLESS } from '../providers/payloads';
import { channelsOf } from '../../common/notification-options';
import { variantThresholds } from '../../common/variants';
import { AbTestsService } from '../ab-tests/ab-tests.service';
import type { ChunkVariants } from './chunk-statement';

/** Targets per transaction: bounds memory and lock time whatever the send's size. */
const CHUNK_SIZE = 5000;

export interface FanoutResult {
  /** false when the notification was already fanned out (a duplicate or re-run job), or is not due */
  ran: boolean;
  installations: number;
  batches: number;
  /** Set when the notification is held until its send_at: the job should come back then. */
  heldUntil?: Date;
  /** Set when a throttled send's fan-out is a lead ahead of its turns: the job should continue then (docs/api.md#pacing). */
  pausedUntil?: Date;
}

/** Turns a notification into delivery rows and jobs, a chunk at a time; a killed fan-out resumes where it stopped. */
@Injectable()
export class FanOutService {
  constructor(
    private readonly fanOuts: FanOutRepository,
    private readonly deliveries: DeliveriesRepository,
    private readonly deliverJobs: DeliverJobs,
    private readonly credentials: CredentialsService,
    private readonly config: EnvironmentVariables,
    private readonly metrics: MetricsService,
    private readonly completions: CompletionReportService,
    private readonly clock: Clock,
    private readonly fairShares: FairSharesService,
    private readonly abTests: AbTestsService,
  ) {}

  /** `resumed`: the job may have died before queueing a chunk's jobs; `continuing`: back from a planned hold, nothing owed. */
  async fanOut(notificationId: string, resumed: boolean, continuing = false): Promise<FanoutResult> {
    const started = await this.fanOuts.start(notificationId);
    if ('missing' in started) {
      return { ran: false, installations: 0, batches: 0, ...(started.missing ? {} : { heldUntil: started.dueAt }) };
    }
    if (started.fanned_out_at) {
      await this.enqueuePendingBatches(notificationId, started);
      await this.completeIfDone(notificationId);
      return { ran: false, installations: 0, batches: 0 };
    }
    if (resumed || (started.fanout_position > 0 && !continuing)) await this.enqueuePendingBatches(notificationId, started);

    const wanted = wantedPlatforms(started.options);
    const configured = await this.credentials.providersForDelivery(started.app_id);
    const options = started.options ?? {};
    const { cap, quiet } = marketingRules(started);
    // A throttled send's batches are half a second of its rate each, one after the other (docs/api.md#pacing).
    const throttle = options.throttle_per_minute;
    const batchSize = throttle ? throttleBatchSize(throttle, this.config.DELIVERY_BATCH_SIZE) : this.config.DELIVERY_BATCH_SIZE;
    const paceMs = throttle ? batchIntervalMs(throttle, batchSize) : null;
    const localTime = options.local_time;
    const rules = { now: new Date(this.clock.now()), reference: started.reference_at, localTime, fixedDue: started.send_at, quiet, ttl: options.ttl };
    // An A/B test's decision is due winner_after from this start (docs/api.md#a-b-test-with-a-winner): stored, then queued.
    if (started.ab_phase !== null) await this.abTests.scheduleDecision(notificationId, started);

    let installations = 0;
    let batchCount = 0;
    for (;;) {
      const chunk = await this.nextChunk(notificationId, {
        appId: started.app_id,
        chunkSize: throttle ? throttleChunkSize(batchSize, CHUNK_SIZE) : CHUNK_SIZE,
        batchSize,
        wanted,
        configured,
        silentless: started.silent ? SILENTLESS : [],
        dueTimes: localTime || quiet ? (zones) => dueTimes(rules, zones) : undefined,
        fixedDue: started.send_at,
        cap,
        paceMs,
        channels: channelsOf(started.options),
        topic: options.topic ?? null,
        marketing: options.category === 'marketing',
        variants: chunkVariants(started),
        audienceTimeoutMs: this.config.AUDIENCE_STATEMENT_TIMEOUT_MS,
      });
      if (!chunk) break;
      installations += chunk.installations;
      batchCount += chunk.batches.length;
      for (const { platform, reason, count } of chunk.skipped) this.metrics.recordSkipped(PROVIDER_OF[platform], reason, count);
      await this.enqueue(notificationId, started, chunk.batches);
      // A throttled send is fanned out a lead ahead of its turns, not all at once; a cancel continues at once.
      const resumeAt =
        paceMs && !chunk.canceled && !chunk.finished
          ? fanOutResumesAt(started.processing_started_at, chunk.batchesSoFar, paceMs, new Date(this.clock.now()))
          : null;
      if (resumeAt) return { ran: true, installations, batches: batchCount, pausedUntil: resumeAt };
    }
    await this.completeIfDone(notificationId);
    return { ran: true, installations, batches: batchCount };
  }

  /** The next chunk; a filter whose audience ran past its time limit fails the send instead (docs/api.md#notification-resource): null, done. */
  private async nextChunk(notificationId: string, params: ChunkParams): Promise<ChunkResult | null> {
    try {
      return await this.fanOuts.nextChunk(notificationId, params);
    } catch (error) {
      if (!(error instanceof AudienceTimedOutError)) throw error;
      await this.fanOuts.fail(notificationId, NotificationFailureReason.AudienceTimedOut);
      return null;
    }
  }

  /** Marks a small send's fan-out done after its batch (docs/api.md#small-sends), completing it unless an outcome is still to come. */
  async finishSmallSend(notificationId: string): Promise<void> {
    if (await this.fanOuts.finishSmallSend(notificationId)) await this.completeIfDone(notificationId);
  }

  private async completeIfDone(notificationId: string): Promise<void> {
    if (await this.deliveries.completeIfDone(notificationId)) await this.completions.completed([notificationId]);
  }

  /** Queues a job for every batch that still has rows to send, delayed to its due time; existing job ids and held places make it a no-op. */
  private async enqueuePendingBatches(notificationId: string, started: StartedRow): Promise<void> {
    await this.enqueue(notificationId, started, await this.deliveries.pendingBatches(notificationId));
  }

  /**
   * Batches due now take their app's lane (docs/api.md#fair-sharing); those due later (local times) and a
   * throttled send's, which its pace spreads already and which must never hold up an unthrottled one, go as jobs.
   */
  private async enqueue(notificationId: string, started: StartedRow, batches: FilledBatch[]): Promise<void> {
    const now = Date.now();
    const throttled = Boolean(started.options?.throttle_per_minute);
    const fair = throttled ? [] : batches.filter(({ due }) => !due || due.getTime() <= now);
    const direct = throttled ? batches : batches.filter(({ due }) => due && due.getTime() > now);
    await this.fairShares.offer(
      started.app_id,
      laneOf(started.options),
      notificationId,
      fair.map(({ batch }) => batch),
    );
    await this.deliverJobs.addBatches(direct.map(({ batch, due }) => ({ notificationId, batch, delayMs: due ? due.getTime() - now : 0 })));
  }
}

/** The chunk's part of variants (docs/api.md#variants): decided once per notification, null (no cost) for a send without. */
export function chunkVariants(started: Pick<StartedRow, 'variants' | 'options'>): ChunkVariants | null {
  if (!started.variants) return null;
  const weights = started.variants.map((variant) => variant.weight);
  return {
    total: weights.reduce((sum, weight) => sum + weight, 0),
    thresholds: variantThresholds(weights),
    samplePercent: started.options?.ab_test?.sample_percent ?? null,
  };
}

/** The app's frequency cap and quiet hours for a marketing send (docs/api.md#pacing); null each otherwise or when off. */
export function marketingRules(started: StartedRow): { cap: { max: number; hours: number } | null; quiet: QuietWindow | null } {
  if (started.options?.category !== 'marketing') return { cap: null, quiet: null };
  return {
    cap: started.frequency_cap_max === null ? null : { max: started.frequency_cap_max, hours: started.frequency_cap_hours! },
    quiet: started.quiet_hours_start === null ? null : { start: started.quiet_hours_start, end: started.quiet_hours_end! },
  };
}
