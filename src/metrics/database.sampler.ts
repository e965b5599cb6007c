import { Injectable, Logger } from '@nestjs/common';
import { DatabasePingRepository } from './database-ping.repository';
import { MetricsService } from './metrics.service';

const PING_TIMEOUT_MS = 1_000;

/** PostgreSQL answering `SELECT 1` within a second, on scrape: `pns_dependency_up{dependency="database"}`. */
@Injectable()
export class DatabaseSampler {
  private readonly logger = new Logger(DatabaseSampler.name);

  constructor(
    private readonly database: DatabasePingRepository,
    private readonly metrics: MetricsService,
  ) {}

  async sample(): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        this.database.ping(),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error(`no answer from PostgreSQL within ${PING_TIMEOUT_MS} ms`)), PING_TIMEOUT_MS);
        }),
      ]);
      this.metrics.dependencyUp.set({ dependency: 'database' }, 1);
    } catch (error) {
      this.metrics.dependencyUp.set({ dependency: 'database' }, 0);
      this.logger.warn(`Could not reach the database: ${(error as Error).message}`);
    } finally {
      clearTimeout(timer);
    }
  }
}
