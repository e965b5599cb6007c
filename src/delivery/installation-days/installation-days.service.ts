import { Injectable, Logger } from '@nestjs/common';
import { InstallationDaysRepository } from './installation-days.repository';

/** The UTC day of `now`, at midnight, as `installation_days.day` stores it. */
export const utcDay = (now: Date): Date => new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));

/**
 * Installations per day by platform and permission (docs/api.md#analytics): each hourly run writes
 * today's counts again, so a past day keeps the last count taken on it.
 */
@Injectable()
export class InstallationDaysService {
  private readonly logger = new Logger(InstallationDaysService.name);

  constructor(private readonly repository: InstallationDaysRepository) {}

  async snapshot(now = new Date()): Promise<{ day: string; rows: number }> {
    const day = utcDay(now);
    const rows = await this.repository.snapshot(day);
    this.logger.debug(`Installation counts of ${day.toISOString().slice(0, 10)}: ${rows} rows`);
    return { day: day.toISOString().slice(0, 10), rows };
  }
}
