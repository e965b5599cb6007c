import { Injectable } from '@nestjs/common';
import { DeliverJobs } from '../../queue/jobs';
import { FairSharesRepository, Lane, LaneBatch } from './fair-shares.repository';

/**
 * Delivery batches one app and lane may have queued at once (docs/api.md#fair-sharing). The deliver
 * queue is first in, first out: with every app limited to this many, a batch an app adds when one
 * of its own finishes goes behind the other apps' queued ones, so apps with work take turns. Above
 * the delivery jobs a deployment runs at once for one send, it costs a lone send nothing.
 */
export const FAIR_WINDOW = 32;

/** Which lane a send's batches take: marketing ones apart, so a transactional send passes them (docs/api.md#fair-sharing). */
export function laneOf(options: { category?: string } | null | undefined): Lane {
  return options?.category === 'marketing' ? 'marketing' : 'transactional';
}

/** Lets each app's delivery batches into the deliver queue a window at a time (docs/decisions/0031-fair-shares-by-windows.md). */
@Injectable()
export class FairSharesService {
  /** Overridable in tests, to see the turns with a few batches. */
  window = FAIR_WINDOW;

  constructor(
    private readonly shares: FairSharesRepository,
    private readonly deliverJobs: DeliverJobs,
  ) {}

  /** A fanned-out chunk's batches that are due now: queued as far as the app's lane has room, the rest held. */
  async offer(appId: string, lane: Lane, notificationId: string, batches: number[]): Promise<void> {
    if (batches.length === 0) return;
    await this.queue(await this.shares.offer(appId, lane, notificationId, batches, this.window));
  }

  /** A batch's job finished (or gave up): its lane's next held batches are queued. */
  async finished(notificationId: string, batch: number): Promise<void> {
    await this.queue(await this.shares.finished(notificationId, batch, this.window));
  }

  /** Sweeper: places of jobs that died without giving them back are freed and refilled; the batches queued. */
  async freeAbandoned(stuckSeconds: number): Promise<number> {
    const lanes = new Map<string, { app_id: string; lane: Lane }>();
    for (const place of await this.shares.freeAbandoned(stuckSeconds)) lanes.set(`${place.app_id}/${place.lane}`, place);
    let queued = 0;
    for (const { app_id, lane } of lanes.values()) {
      const released = await this.shares.releaseHeld(app_id, lane, this.window);
      await this.queue(released);
      queued += released.length;
    }
    return queued;
  }

  /**
   * Sweeper: places queued over `unqueuedAfterMs` ago whose batch has no live job (a worker died
   * between the window's commit and the job's add, or its job was lost) get their job again.
   */
  async requeueLost(unqueuedAfterMs: number, limit: number): Promise<number> {
    let queued = 0;
    for (const { notification_id, batch } of await this.shares.queuedBefore(unqueuedAfterMs / 1000, limit)) {
      if (await this.deliverJobs.requeue(notification_id, batch)) queued++;
    }
    return queued;
  }

  private async queue(batches: LaneBatch[]): Promise<void> {
    await this.deliverJobs.addBatches(batches.map(({ notification_id, batch }) => ({ notificationId: notification_id, batch })));
  }
}
