import { Injectable } from '@nestjs/common';
import { FanoutJobs } from '../../queue/jobs';
import { FanoutSharesRepository } from './fanout-shares.repository';

/**
 * Fan-outs one app may have queued or running at once (docs/api.md#fair-sharing). The fan-out queue
 * is first in, first out: with every app limited to this many, a fan-out an app's ends lets in goes
 * behind the other apps' queued ones, so one app's thousand sends do not hold another's.
 */
export const FANOUT_WINDOW = 4;

/** Lets each app's fan-outs of sends due now into the fan-out queue a window at a time (docs/decisions/0037-fan-out-windows.md). */
@Injectable()
export class FanoutSharesService {
  /** Overridable in tests, to see the turns with a few sends. */
  window = FANOUT_WINDOW;

  constructor(
    private readonly shares: FanoutSharesRepository,
    private readonly fanoutJobs: FanoutJobs,
  ) {}

  /** The app's sends to fan out now: queued as far as its window has room, the rest held. */
  async offer(appId: string, notificationIds: readonly string[]): Promise<void> {
    if (notificationIds.length === 0) return;
    await this.fanoutJobs.addMany(await this.shares.offer(appId, notificationIds, this.window));
  }

  /** A fan-out ended (not one that waits for its turn or its send_at): the app's next held ones are queued. */
  async finished(notificationId: string): Promise<void> {
    await this.fanoutJobs.addMany(await this.shares.finished(notificationId, this.window));
  }

  /** Sweeper: places of fan-outs that ended without giving them back are freed, and refilled. */
  async freeEnded(): Promise<number> {
    let queued = 0;
    for (const appId of await this.shares.freeEnded()) {
      const released = await this.shares.releaseHeld(appId, this.window);
      await this.fanoutJobs.addMany(released);
      queued += released.length;
    }
    return queued;
  }
}
