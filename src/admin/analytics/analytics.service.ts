import { Injectable } from '@nestjs/common';
import { stringify } from 'csv-stringify/sync';
import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { AppsService } from '../../apps/apps.service';
import { NotFoundError } from '../../common/errors';
import { PLATFORMS } from '../../common/platform';
import { isUuid } from '../../common/uuid';
import { NotificationsService } from '../../notifications/notifications.service';
import { DeliveryTraceService } from '../../notifications/trace/delivery-trace.service';
import { AnalyticsRepository } from './analytics.repository';

/** Rows per page of the trace's CSV: the export holds one page at a time, whatever the trace's size. */
export const TRACE_CSV_PAGE = 1000;
export const ANALYTICS_DAYS = { min: 1, max: 90, default: 30 } as const;

export const TRACE_CSV_COLUMNS = [
  'installation_id',
  'user_id',
  'platform',
  'status',
  'reason',
  'attempts',
  'provider_message_id',
  'scheduled_for',
  'updated_at',
  'received_at',
  'displayed_at',
  'opened_at',
  'opened_action',
] as const;

/** A cell a spreadsheet would run as a formula starts with a quote (OWASP "CSV injection"). */
const cell = (value: string | number | null): string => {
  if (value === null) return '';
  const text = String(value);
  return /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
};

async function write(output: Writable, text: string): Promise<void> {
  if (!output.write(text)) await once(output, 'drain');
}

/** The first UTC midnight of the last `days` days, today included. */
export function sinceDays(days: number, now = new Date()): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() - (days - 1)));
}

/** The dashboard's analytics (docs/api.md#analytics). */
@Injectable()
export class AnalyticsService {
  constructor(
    private readonly apps: AppsService,
    private readonly notifications: NotificationsService,
    private readonly trace: DeliveryTraceService,
    private readonly repository: AnalyticsRepository,
  ) {}

  /** accepted → received → displayed → opened per platform, with the failed and skipped, of the send's deliveries. */
  async funnel(appId: string, id: string) {
    await this.notifications.find(appId, id);
    return this.repository.platformFunnel(appId, id.toLowerCase());
  }

  /** Checks the send exists (a 404 before any byte is written). */
  async assertNotification(appId: string, id: string): Promise<void> {
    await this.notifications.find(appId, id);
  }

  /** The trace as CSV, a page at a time in the trace's order; answers the rows written. */
  async traceCsv(appId: string, id: string, output: Writable, pageSize = TRACE_CSV_PAGE): Promise<number> {
    await write(output, stringify([[...TRACE_CSV_COLUMNS]]));
    let cursor: string | undefined;
    let count = 0;
    do {
      const page = await this.trace.page(appId, id, pageSize, null, cursor);
      if (page.data.length > 0) await write(output, stringify(page.data.map((entry) => TRACE_CSV_COLUMNS.map((column) => cell(entry[column])))));
      count += page.data.length;
      cursor = page.meta.next_cursor ?? undefined;
    } while (cursor !== undefined);
    return count;
  }

  /** The app's last `days` UTC days: installations by platform and permission, sends and outcomes, opened rate by category. */
  async app(appId: string, days: number, now = new Date()) {
    if (!isUuid(appId) || !(await this.apps.find(appId))) throw new NotFoundError();
    const since = sinceDays(days, now);
    const [installations, sends, categories] = await Promise.all([
      this.repository.installationDays(appId, since),
      this.repository.sendDays(appId, since),
      this.repository.categories(appId, since),
    ]);
    return {
      since: since.toISOString().slice(0, 10),
      installations: installations.filter((row) => (PLATFORMS as readonly string[]).includes(row.platform)),
      sends,
      categories: categories.map((row) => ({ ...row, opened_rate: row.accepted > 0 ? row.opened / row.accepted : null })),
    };
  }
}
