import { Injectable, Logger } from '@nestjs/common';
import { channelsOf } from '../../common/notification-options';
import { PROVIDER_OF } from '../../common/vocabulary';
import { EnvironmentVariables } from '../../config/env';
import { CredentialsService } from '../../credentials/credentials.service';
import { MetricsService } from '../../metrics/metrics.service';
import { FanoutSharesService } from '../fair-shares/fanout-shares.service';
import { FanoutJobs, SmallSendJobs } from '../../queue/jobs';
import { CompletionReportService } from '../completion-report.service';
import { DeliveriesRepository } from '../deliver/deliveries.repository';
import { ChunkParams, ChunkResult, FanOutRepository, wantedPlatforms } from '../fan-out/fan-out.repository';
import { SILENTLESS } from '../providers/payloads';
import { DueSendsDrain } from '../fan-out/due-sends-drain';
import { planDueGroup } from './due-plan';
import { ClaimedDueSend, DueSendsRepository } from './due-sends.repository';

/** Due sends per claim: one transaction's worth of small fan-outs, each a few statements. */
export const DUE_SENDS_GROUP = 100;
/** A list send's one chunk (the fan-out's chunk size): every id of a small send. */
const LIST_CHUNK = 5000;

export interface DueSendsReport {
  groups: number;
  /** Small sends fanned out in their group. */
  fannedOut: number;
  /** Sends given a fan-out job: larger or paced ones, and small ones whose statement failed in the group. */
  queued: number;
}

/**
 * Sends due at an instant (docs/api.md#due-sends): claimed in groups, app by app, with `FOR UPDATE
 * SKIP LOCKED` (any number of jobs and workers share them); small ones fanned out in the group's
 * transaction and their batches queued as one job, the others queued as fan-out jobs in one call.
 */
@Injectable()
export class DueSendsService implements DueSendsDrain {
  private readonly logger = new Logger(DueSendsService.name);
  /** Sends per group; a test sets it smaller. */
  groupSize = DUE_SENDS_GROUP;

  constructor(
    private readonly dueSends: DueSendsRepository,
    private readonly fanOuts: FanOutRepository,
    private readonly deliveries: DeliveriesRepository,
    private readonly credentials: CredentialsService,
    private readonly fanoutJobs: FanoutJobs,
    private readonly fanoutShares: FanoutSharesService,
    private readonly smallSendJobs: SmallSendJobs,
    private readonly completions: CompletionReportService,
    private readonly metrics: MetricsService,
    private readonly config: EnvironmentVariables,
  ) {}

  /** Claims group after group until no due send is left unclaimed; `onFull` once, when the first group was full (a helper job may join). */
  async drain(onFull?: () => Promise<unknown>): Promise<DueSendsReport> {
    const report: DueSendsReport = { groups: 0, fannedOut: 0, queued: 0 };
    for (;;) {
      const group = await this.claimGroup();
      if (group.claimed === 0) return report;
      report.groups++;
      report.fannedOut += group.fannedOut;
      report.queued += group.queued;
      if (group.claimed < this.groupSize) return report;
      if (report.groups === 1 && onFull) await onFull().catch((error: Error) => this.logger.debug(`No helper for the due sends: ${error.message}`));
    }
  }

  /** One group: claimed, its small sends fanned out, committed; then their jobs queued. */
  async claimGroup(): Promise<{ claimed: number; fannedOut: number; queued: number }> {
    const batches: { notificationId: string; batch: number }[] = [];
    const fanouts: ClaimedDueSend[] = [];
    const skipped: ChunkResult['skipped'] = [];
    const nothingToSend: string[] = [];
    const claimed = await this.dueSends.group(this.groupSize, async (rows, tx) => {
      const { small, fanouts: others } = planDueGroup(rows, this.config.SMALL_SEND_MAX_RECIPIENTS);
      fanouts.push(...others);
      for (const send of small) {
        const params = await this.paramsOf(send);
        const chunks = await this.dueSends.attempt(tx, () => this.fanOuts.fanOutListIn(send.id, params, tx));
        if (chunks instanceof Error) {
          // Undone to its savepoint, still claimed: its own fan-out job does it (and meets the error, if any, there).
          this.logger.warn(`Due send ${send.id} not fanned out in its group (${chunks.message}); its fan-out job will.`);
          fanouts.push(send);
          continue;
        }
        const own = chunks.flatMap((chunk) => chunk.batches.map(({ batch }) => ({ notificationId: send.id, batch })));
        batches.push(...own);
        skipped.push(...chunks.flatMap((chunk) => chunk.skipped));
        if (own.length === 0) nothingToSend.push(send.id);
      }
      return rows.length;
    });
    for (const { platform, reason, count } of skipped) this.metrics.recordSkipped(PROVIDER_OF[platform], reason, count);
    // Committed first: a worker killed before these leaves rows the sweeper queues (overdue batches, unfanned sends).
    await this.smallSendJobs.addGroup(batches);
    await this.queueFanouts(fanouts);
    for (const id of nothingToSend) {
      if (await this.deliveries.completeIfDone(id)) await this.completions.completed([id]);
    }
    return { claimed, fannedOut: claimed - fanouts.length, queued: fanouts.length };
  }

  /** Each app's fan-outs through its window, in the claim's order of apps; a throttled send's paces itself (docs/api.md#fair-sharing). */
  private async queueFanouts(sends: readonly ClaimedDueSend[]): Promise<void> {
    await this.fanoutJobs.addMany(sends.filter((send) => send.options?.throttle_per_minute).map((send) => send.id));
    const byApp = new Map<string, string[]>();
    for (const send of sends) {
      if (!send.options?.throttle_per_minute) byApp.set(send.app_id, [...(byApp.get(send.app_id) ?? []), send.id]);
    }
    for (const [appId, ids] of byApp) await this.fanoutShares.offer(appId, ids);
  }

  /** A small send's one chunk, as the fan-out would write it for a transactional send due at its send_at. */
  private async paramsOf(send: ClaimedDueSend): Promise<ChunkParams> {
    return {
      appId: send.app_id,
      chunkSize: LIST_CHUNK,
      batchSize: this.config.DELIVERY_BATCH_SIZE,
      wanted: wantedPlatforms(send.options),
      configured: await this.credentials.providersForDelivery(send.app_id),
      silentless: send.silent ? SILENTLESS : [],
      fixedDue: send.send_at,
      cap: null,
      paceMs: null,
      channels: channelsOf(send.options),
      topic: send.options?.topic ?? null,
      marketing: false,
      audienceTimeoutMs: this.config.AUDIENCE_STATEMENT_TIMEOUT_MS,
    };
  }
}
