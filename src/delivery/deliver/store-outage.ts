import { Injectable, Logger } from '@nestjs/common';
import { isStoreUnavailable } from '../../common/http/unavailable';

/** Waits between tries while the database is unreachable: from the first to the last, doubling. */
const FIRST_RETRY_MS = 100;
const LAST_RETRY_MS = 1_000;

/**
 * The worker's view of a database outage: work through `retrying` waits for PostgreSQL instead of
 * failing, so claimed rows keep their outcomes; sending waits on `over()` (docs/api.md#delivery).
 */
@Injectable()
export class StoreOutage {
  private readonly logger = new Logger('Delivery');
  private since: number | undefined;
  private waiters: (() => void)[] = [];

  /** Whether the last try failed because PostgreSQL was unreachable. */
  get active(): boolean {
    return this.since !== undefined;
  }

  /** Runs `attempt` until it succeeds or fails for another reason than the database being unreachable. */
  async retrying<T>(what: string, attempt: () => Promise<T>): Promise<T> {
    for (let delay = FIRST_RETRY_MS; ; delay = Math.min(delay * 2, LAST_RETRY_MS)) {
      try {
        const result = await attempt();
        this.end();
        return result;
      } catch (error) {
        if (!isStoreUnavailable(error)) throw error;
        this.begin(what, error as Error);
        await new Promise((resolve) => setTimeout(resolve, delay));
      }
    }
  }

  /** Resolves at once, or when the outage ends. */
  over(): Promise<void> {
    return this.active ? new Promise((resolve) => this.waiters.push(resolve)) : Promise.resolve();
  }

  private begin(what: string, error: Error): void {
    if (this.since !== undefined) return;
    this.since = Date.now();
    const code = (error as Error & { code?: string }).code;
    this.logger.warn(`Database unreachable while ${what} (${code ?? error.message}): delivery paused until it answers`);
  }

  private end(): void {
    if (this.since === undefined) return;
    this.logger.log(`Database reachable again after ${((Date.now() - this.since) / 1000).toFixed(1)} s: delivery resumed`);
    this.since = undefined;
    const waiters = this.waiters;
    this.waiters = [];
    for (const resume of waiters) resume();
  }
}
