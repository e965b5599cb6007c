import { Inject, Injectable } from '@nestjs/common';
import { PLATFORMS } from '../common/platform';
import { EnvironmentVariables } from '../config/env';
import { CredentialsService } from '../credentials/credentials.service';
import { MetricsService, PROVIDER_LABELS } from '../metrics/metrics.service';
import { DeliverJobs } from '../queue/jobs';
import { CompletionReportService } from './completion-report.service';
import { DeliveriesRepository } from './deliveries.repository';
import { FanOutRepository } from './fan-out.repository';
import { PUSH_PROVIDERS, PushProvider } from './providers/push-provider';

/** Target users handled per transaction: bounds memory and lock time, whatever the send's size. */
const USERS_PER_CHUNK = 5000;

export interface FanoutResult {
  /** false when the notification was already fanned out (a duplicate or re-run job) */
  ran: boolean;
  installations: number;
  batches: number;
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
    if (!started) return { ran: false, installations: 0, batches: 0 };
    if (started.fanned_out_at) {
      await this.enqueuePendingBatches(notificationId);
      await this.completeIfDone(notificationId);
      return { ran: false, installations: 0, batches: 0 };
    }
    // A re-run may follow a crash between a chunk's commit and the queueing of its jobs.
    if (resumed || started.fanout_position > 0) await this.enqueuePendingBatches(notificationId);

    const wanted = started.options?.platforms ?? PLATFORMS;
    const credentials = await this.credentials.forDelivery(started.app_id);
    const configured = this.providers.filter((p) => p.configured(credentials)).map((p) => p.platform);
    const batchSize = this.config.DELIVERY_BATCH_SIZE;

    let installations = 0;
    let batchCount = 0;
    for (;;) {
      const chunk = await this.fanOuts.nextChunk(notificationId, {
        appId: started.app_id,
        usersPerChunk: USERS_PER_CHUNK,
        batchSize,
        wanted,
        configured,
      });
      if (!chunk) break;
      installations += chunk.installations;
      batchCount += chunk.batches.length;
      for (const { platform, reason, count } of chunk.skipped) this.metrics.recordSkipped(PROVIDER_LABELS[platform], reason, count);
      await this.enqueue(notificationId, chunk.batches);
    }
    await this.completeIfDone(notificationId);
    return { ran: true, installations, batches: batchCount };
  }

  /** A fan-out whose installations were all skipped (or that had none) completes here. */
  private async completeIfDone(notificationId: string): Promise<void> {
    if (await this.deliveries.completeIfDone(notificationId)) await this.completions.completed([notificationId]);
  }

  /** Queues a job for every batch that still has pending rows; existing job ids make it a no-op. */
  async enqueuePendingBatches(notificationId: string): Promise<void> {
    await this.enqueue(notificationId, await this.deliveries.pendingBatches(notificationId));
  }

  private enqueue(notificationId: string, batches: number[]): Promise<void> {
    return this.deliverJobs.addBatches(batches.map((batch) => ({ notificationId, batch })));
  }
}
