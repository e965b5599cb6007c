import { Injectable, Optional } from '@nestjs/common';
import { AudienceBusyError } from '../../common/errors';
import { EnvironmentVariables } from '../../config/env';
import { MetricsService } from '../../metrics/metrics.service';

/** How many audience statements may run at once in a process, and for one app (docs/operations.md "Costly audiences"). */
export interface SlotLimits {
  total: number;
  perApp: number;
}

/** AUDIENCE_CONCURRENCY, or a quarter of the pool (at least 1): the rest of the pool stays for the other routes. */
export const audienceLimits = (
  config: Pick<EnvironmentVariables, 'AUDIENCE_CONCURRENCY' | 'AUDIENCE_CONCURRENCY_PER_APP' | 'DATABASE_POOL_SIZE'>,
): SlotLimits => ({
  total: config.AUDIENCE_CONCURRENCY ?? Math.max(1, Math.floor(config.DATABASE_POOL_SIZE / 4)),
  perApp: config.AUDIENCE_CONCURRENCY_PER_APP,
});

/** The slots taken, in total and per app; pure (no clock, no I/O). A slot is given back once, however often `release` is called. */
export class SlotCounter {
  private total = 0;
  private readonly byApp = new Map<string, number>();

  constructor(readonly limits: SlotLimits) {}

  /** A release function when `appId` is under both limits, else undefined (nothing taken). */
  tryTake(appId: string): (() => void) | undefined {
    const held = this.byApp.get(appId) ?? 0;
    if (this.total >= this.limits.total || held >= this.limits.perApp) return undefined;
    this.total++;
    this.byApp.set(appId, held + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.total--;
      const left = (this.byApp.get(appId) ?? 1) - 1;
      if (left === 0) this.byApp.delete(appId);
      else this.byApp.set(appId, left);
    };
  }

  held(appId?: string): number {
    return appId === undefined ? this.total : (this.byApp.get(appId) ?? 0);
  }
}

/**
 * The api process's limiter for statements that evaluate an audience on a request (docs/api.md#count-an-audience):
 * over a limit, AudienceBusyError (429) before any pool connection is taken. The slot is held until `work`
 * settles, and boundedTransaction settles only once its statement ended and any cancel of it finished.
 */
@Injectable()
export class AudienceSlots {
  readonly counter: SlotCounter;

  constructor(
    config: EnvironmentVariables,
    @Optional() private readonly metrics?: MetricsService,
  ) {
    this.counter = new SlotCounter(audienceLimits(config));
  }

  async run<T>(appId: string, work: () => Promise<T>): Promise<T> {
    const release = this.counter.tryTake(appId);
    if (!release) {
      this.metrics?.audienceRefused.inc();
      throw new AudienceBusyError();
    }
    try {
      return await work();
    } finally {
      release();
    }
  }
}
