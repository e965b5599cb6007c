import { Inject, Injectable } from '@nestjs/common';
import { PLATFORMS } from '../../common/platform';
import { PROVIDER_OF } from '../../common/vocabulary';
import { EnvironmentVariables } from '../../config/env';
import { CredentialsService } from '../../credentials/credentials.service';
import { MetricsService } from '../../metrics/metrics.service';
import { DeliverJobs } from '../../queue/jobs';
import { CompletionReportService } from '../completion-report.service';
import { DeliveriesRepository } from '../deliver/deliveries.repository';
import { ChunkDueTimes, FanOutRepository, FilledBatch } from './fan-out.repository';
import { isTimeZone, nextLocalTime } from './local-time';
import { SILENTLESS } from '../providers/payloads';
import { PUSH_PROVIDERS, PushProvider } from '../providers/push-provider';

/**
 * Target users (or installation ids, or installations of a tag or broadcast walk) handled per
 * transaction: bounds memory and lock time, whatever the send's size.
 */
const CHUNK_SIZE = 5000;

export interface FanoutResult {
  /** false when the notification was already fanned out (a duplicate or re-run job), or is not due */
  ran: boolean;
  installations: number;
  batches: number;
  /** Set when the notification is held until its send_at: the job should come back then. */
  heldUntil?: Date;
}

/**
 * Turns a notification into delivery rows and delivery jobs, a chunk of users at a time.
 * Resumable (see FanOutRepository): a fan-out killed mid-way continues where it stopped.
 */
@Injectable()
export class FanOutService {
  constructor(
    private readonly fanOuts: FanOutRepository,
    private readonly deliveries: DeliveriesRepository,
    private readonly deliverJobs: DeliverJobs,
    private readonly credentials: CredentialsService,
    @Inject(PUSH_PROVIDERS) private readonly providers: PushProvider[],
    private readonly config: EnvironmentVariables,
    private readonly metrics: MetricsService,
    private readonly completions: CompletionReportService,
  ) {}

  async fanOut(notificationId: string, resumed: boolean): Promise<FanoutResult> {
    const started = await this.fanOuts.start(notificationId);
    if ('missing' in started) {
      return { ran: false, installations: 0, batches: 0, ...(started.missing ? {} : { heldUntil: started.dueAt }) };
    }
    if (started.fanned_out_at) {
      await this.enqueuePendingBatches(notificationId);
      await this.completeIfDone(notificationId);
      return { ran: false, installations: 0, batches: 0 };
    }
    // A re-run may follow a crash between a chunk's commit and the queueing of its jobs.
    if (resumed || started.fanout_position > 0) await this.enqueuePendingBatches(notificationId);

    // A Live Activity start goes to iOS alone; the others are skipped as PlatformExcluded (docs/api.md#live-activity-starts).
    const wanted = (started.options?.platforms ?? PLATFORMS).filter((platform) => !started.options?.live_activity || platform === 'ios');
    const credentials = await this.credentials.forDelivery(started.app_id);
    const configured = this.providers.filter((p) => p.configured(credentials)).map((p) => p.platform);
    const batchSize = this.config.DELIVERY_BATCH_SIZE;
    const localTime = started.options?.local_time;
    const reference = started.reference_at;

    let installations = 0;
    let batchCount = 0;
    for (;;) {
      const chunk = await this.fanOuts.nextChunk(notificationId, {
        appId: started.app_id,
        chunkSize: CHUNK_SIZE,
        batchSize,
        wanted,
        configured,
        silentless: started.silent ? SILENTLESS : [],
        dueTimes: localTime ? (zones) => dueTimes(reference, localTime, zones) : undefined,
        fixedDue: started.send_at,
      });
      if (!chunk) break;
      installations += chunk.installations;
      batchCount += chunk.batches.length;
      for (const { platform, reason, count } of chunk.skipped) this.metrics.recordSkipped(PROVIDER_OF[platform], reason, count);
      await this.enqueue(notificationId, chunk.batches);
    }
    await this.completeIfDone(notificationId);
    return { ran: true, installations, batches: batchCount };
  }

  /** A fan-out whose installations were all skipped (or that had none) completes here. */
  private async completeIfDone(notificationId: string): Promise<void> {
    if (await this.deliveries.completeIfDone(notificationId)) await this.completions.completed([notificationId]);
  }

  /** Queues a job for every batch that still has rows to send, delayed to its due time; existing job ids make it a no-op. */
  async enqueuePendingBatches(notificationId: string): Promise<void> {
    await this.enqueue(notificationId, await this.deliveries.pendingBatches(notificationId));
  }

  private enqueue(notificationId: string, batches: FilledBatch[]): Promise<void> {
    const now = Date.now();
    return this.deliverJobs.addBatches(batches.map(({ batch, due }) => ({ notificationId, batch, delayMs: due ? due.getTime() - now : 0 })));
  }
}

/**
 * Each zone's due instant for `options.local_time` (docs/api.md#scheduling): the first `localTime` at or
 * after `reference` there. Zones Intl does not know are left out, so their installations fall back
 * to UTC's due time, as do those without a zone.
 */
export function dueTimes(reference: Date, localTime: string, zones: string[]): ChunkDueTimes {
  const known = zones.filter((zone) => isTimeZone(zone));
  return {
    zones: known,
    dues: known.map((zone) => nextLocalTime(reference, localTime, zone)),
    fallback: nextLocalTime(reference, localTime, 'UTC'),
  };
}
