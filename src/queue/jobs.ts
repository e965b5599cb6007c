import { InjectQueue } from '@nestjs/bullmq';
import { Injectable } from '@nestjs/common';
import { Job, JobsOptions, Queue } from 'bullmq';
import {
  AB_DECISION_JOB,
  abDecisionJobId,
  MAINTENANCE_QUEUE,
  CarriedContent,
  DELIVER_JOB,
  DELIVER_QUEUE,
  DeliverJob,
  deliverJobId,
  DUE_BATCHES_JOB,
  DueBatchesJob,
  dueBatchesJobId,
  DUE_SENDS_JOB,
  DueSendsJob,
  dueSendsJobId,
  FANOUT_JOB,
  LIVE_ACTIVITY_BROADCAST_JOB,
  LIVE_ACTIVITY_JOB,
  LIVE_ACTIVITY_QUEUE,
  LiveActivityBroadcastJob,
  LiveActivityJob,
  liveActivityBroadcastJobId,
  liveActivityJobId,
  SMALL_SEND_QUEUE,
  FANOUT_QUEUE,
  FanoutJob,
  fanoutJobId,
  WEBHOOK_JOB,
  WEBHOOK_QUEUE,
  WebhookJob,
  webhookJobId,
} from '../common/queues';

/** The one place that queues fan-outs; each module registers FANOUT_QUEUE on its own connection. */
@Injectable()
export class FanoutJobs {
  constructor(@InjectQueue(FANOUT_QUEUE) private readonly queue: Queue<FanoutJob>) {}

  /** Fan-outs of several notifications due now, queued in their order with one call (DueSendsService). */
  async addMany(notificationIds: readonly string[]): Promise<void> {
    if (notificationIds.length === 0) return;
    await this.queue.addBulk(
      notificationIds.map((notificationId) => ({ name: FANOUT_JOB, data: { notificationId }, opts: { jobId: fanoutJobId(notificationId) } })),
    );
  }

  /**
   * The job that claims the sends due at `dueAt` (docs/api.md#due-sends), delayed until then: one per
   * instant, however many sends it holds; `suffix` queues a fresh one (the sweeper, a drain that goes on).
   */
  addDue(dueAt: number, suffix?: string): Promise<Job<DueSendsJob>> {
    const queue = this.queue as unknown as Queue<DueSendsJob>;
    const delay = dueAt - Date.now();
    return queue.add(DUE_SENDS_JOB, { dueAt }, { jobId: dueSendsJobId(dueAt, suffix), ...(delay > 0 ? { delay } : {}) });
  }

  /** The due-sends job of an instant, if any. */
  findDue(dueAt: number): Promise<Job<DueSendsJob> | undefined> {
    return (this.queue as unknown as Queue<DueSendsJob>).getJob(dueSendsJobId(dueAt));
  }

  /** A notification's fan-out, once per job id; `delayMs` holds it to send_at, `small` only finishes it (docs/api.md#small-sends). */
  add(notificationId: string, delayMs = 0, small = false): Promise<Job<FanoutJob>> {
    return this.queue.add(
      FANOUT_JOB,
      { notificationId, ...(small ? { small } : {}) },
      { jobId: fanoutJobId(notificationId), ...(delayMs > 0 ? { delay: delayMs } : {}) },
    );
  }

  /** Runs a held (delayed) fan-out now, e.g. once its notification is cancelled; queues it when Redis has none. */
  async runNow(notificationId: string): Promise<void> {
    const job = await this.find(notificationId);
    if (!job) {
      await this.add(notificationId);
    } else if (await job.isDelayed()) {
      await job.promote();
    }
  }

  find(notificationId: string): Promise<Job<FanoutJob> | undefined> {
    return this.queue.getJob(fanoutJobId(notificationId));
  }
}

@Injectable()
export class DeliverJobs {
  constructor(@InjectQueue(DELIVER_QUEUE) private readonly queue: Queue<DeliverJob>) {}

  /** One job per batch, once per id; a `suffix` makes a fresh id when the batch's own job may still sit completed. */
  async addBatches(batches: readonly (DeliverJob & { delayMs?: number })[], suffix?: string): Promise<void> {
    if (batches.length === 0) return;
    await this.queue.addBulk(
      batches.map(({ delayMs, ...data }) => ({
        name: DELIVER_JOB,
        data,
        // A batch due later (a local time, docs/api.md#scheduling) waits in Redis as one delayed job.
        opts: { jobId: deliverJobId(data.notificationId, data.batch, suffix), ...(delayMs && delayMs > 0 ? { delay: delayMs } : {}) },
      })),
    );
  }

  /** A batch's own job again unless a live one holds it (FairSharesService.requeueLost). True when queued. */
  requeue(notificationId: string, batch: number): Promise<boolean> {
    return requeueUnlessLive(this.queue, deliverJobId(notificationId, batch), () => this.addBatches([{ notificationId, batch }]));
  }

  addRetry(notificationId: string, batch: number, attempt: number, delayMs: number): Promise<Job<DeliverJob>> {
    const opts: JobsOptions = { jobId: deliverJobId(notificationId, batch, `a${attempt}`), delay: Math.max(0, delayMs) };
    return this.queue.add(DELIVER_JOB, { notificationId, batch }, opts);
  }
}

/** A/B tests' decisions (docs/api.md#a-b-test-with-a-winner): one delayed job per test on the maintenance queue; the sweeper decides what it misses. */
@Injectable()
export class AbDecisionJobs {
  constructor(@InjectQueue(MAINTENANCE_QUEUE) private readonly queue: Queue) {}

  add(notificationId: string, delayMs: number): Promise<Job> {
    return this.queue.add(AB_DECISION_JOB, { notificationId }, { jobId: abDecisionJobId(notificationId), delay: Math.max(0, delayMs) });
  }
}

/** The one place that queues the batches of small sends (docs/api.md#small-sends): the API, once their rows are committed. */
@Injectable()
export class SmallSendJobs {
  constructor(@InjectQueue(SMALL_SEND_QUEUE) private readonly queue: Queue<DeliverJob>) {}

  /** Each batch's job carries the notification (`carried`), which the worker then does not read again. */
  async addBatches(notificationId: string, batches: readonly number[], carried: CarriedContent): Promise<void> {
    if (batches.length === 0) return;
    await this.queue.addBulk(
      batches.map((batch) => ({ name: DELIVER_JOB, data: { notificationId, batch, carried }, opts: { jobId: deliverJobId(notificationId, batch) } })),
    );
  }

  /**
   * The batches of a due-sends group's small sends (docs/api.md#due-sends) as one job, which delivers
   * them a few at a time: one job per group, not one per send. Its batches read their notification.
   */
  async addGroup(batches: readonly { notificationId: string; batch: number }[]): Promise<void> {
    if (batches.length === 0) return;
    const queue = this.queue as unknown as Queue<DueBatchesJob>;
    await queue.add(DUE_BATCHES_JOB, { batches: [...batches] }, { jobId: dueBatchesJobId(batches[0]) });
  }
}

/** The one place that queues webhook calls (docs/api.md#webhooks), one job per attempt of a message. */
@Injectable()
export class WebhookJobs {
  constructor(@InjectQueue(WEBHOOK_QUEUE) private readonly queue: Queue<WebhookJob>) {}

  /** Attempts of messages, each after its `delayMs`; an attempt already queued is not queued twice (its id). */
  async add(calls: readonly (WebhookJob & { delayMs?: number })[]): Promise<void> {
    if (calls.length === 0) return;
    await this.queue.addBulk(
      calls.map(({ delayMs, ...data }) => ({
        name: WEBHOOK_JOB,
        data,
        opts: { jobId: webhookJobId(data.messageId, data.attempt), ...(delayMs && delayMs > 0 ? { delay: delayMs } : {}) },
      })),
    );
  }

  /** Queues owed attempts; a completed or failed job of the same id would swallow the add, so it goes first. */
  async requeue(calls: readonly WebhookJob[]): Promise<void> {
    for (const call of calls) {
      const job = await this.queue.getJob(webhookJobId(call.messageId, call.attempt));
      if (job && ((await job.isCompleted()) || (await job.isFailed()))) await job.remove();
    }
    await this.add(calls);
  }
}

@Injectable()
export class LiveActivityJobs {
  constructor(@InjectQueue(LIVE_ACTIVITY_QUEUE) private readonly queue: Queue<LiveActivityJob>) {}

  /** Attempt `attempt` of an update, after `delayMs`; an attempt already queued is not queued twice (its id). */
  add(updateId: string, attempt: number, delayMs = 0): Promise<Job<LiveActivityJob>> {
    return this.queue.add(
      LIVE_ACTIVITY_JOB,
      { updateId, attempt },
      { jobId: liveActivityJobId(updateId, attempt), ...(delayMs > 0 ? { delay: delayMs } : {}) },
    );
  }

  /** Queues an owed update attempt unless a live job holds it; a finished one of the same id goes first. True when queued. */
  requeue(updateId: string, attempt: number): Promise<boolean> {
    return requeueUnlessLive(this.queue, liveActivityJobId(updateId, attempt), () => this.add(updateId, attempt));
  }
}

/** Attempts of Live Activity channel broadcasts, on the Live Activity queue (docs/api.md#live-activity-channels). */
@Injectable()
export class LiveActivityBroadcastJobs {
  constructor(@InjectQueue(LIVE_ACTIVITY_QUEUE) private readonly queue: Queue<LiveActivityBroadcastJob>) {}

  /** Attempt `attempt` of a broadcast, after `delayMs`; queued once per id. */
  add(broadcastId: string, attempt: number, delayMs = 0): Promise<Job<LiveActivityBroadcastJob>> {
    return this.queue.add(
      LIVE_ACTIVITY_BROADCAST_JOB,
      { broadcastId, attempt },
      { jobId: liveActivityBroadcastJobId(broadcastId, attempt), ...(delayMs > 0 ? { delay: delayMs } : {}) },
    );
  }

  /** Queues an owed attempt unless a live job holds it; a finished one of the same id goes first. True when queued. */
  requeue(broadcastId: string, attempt: number): Promise<boolean> {
    return requeueUnlessLive(this.queue, liveActivityBroadcastJobId(broadcastId, attempt), () => this.add(broadcastId, attempt));
  }
}

/** Adds a job of `jobId` unless a live one holds that id; a finished one goes first, since its id would swallow the add. True when queued. */
async function requeueUnlessLive(queue: Queue, jobId: string, add: () => Promise<unknown>): Promise<boolean> {
  const job = await queue.getJob(jobId);
  const state = job ? await job.getState() : 'missing';
  if (!['missing', 'unknown', 'completed', 'failed'].includes(state)) return false;
  if (job) await job.remove().catch(() => undefined);
  await add();
  return true;
}
