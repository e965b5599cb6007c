import { Injectable } from '@nestjs/common';
import { stringify } from 'csv-stringify/sync';
import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { iso } from '../common/time';
import { pushProviderOf } from '../common/platform';
import { INSTALLATION_CSV_COLUMNS, InstallationCsvColumn, TOKEN_COLUMNS } from './installation-csv';
import { ExportRow, TransferRepository } from './transfer.repository';

const PAGE = 1000;

/**
 * `pns export` (docs/api.md#export): the app's live installations in our CSV, a page at a time in
 * installation_id order; the columns that carry a channel to the device are empty unless `withTokens`.
 */
@Injectable()
export class ExportService {
  constructor(private readonly transfer: TransferRepository) {}

  async export(appId: string, output: Writable, withTokens: boolean): Promise<number> {
    await write(output, stringify([[...INSTALLATION_CSV_COLUMNS]]));
    let after = '';
    let count = 0;
    for (;;) {
      const rows = await this.transfer.exportPage(appId, after, PAGE);
      if (rows.length === 0) return count;
      const lines = rows.map((row) => {
        const cells = cellsOf(row);
        return INSTALLATION_CSV_COLUMNS.map((column) => (!withTokens && TOKEN_COLUMNS.includes(column) ? '' : cells[column]));
      });
      await write(output, stringify(lines));
      count += rows.length;
      after = rows[rows.length - 1].installation_id;
    }
  }
}

async function write(output: Writable, text: string): Promise<void> {
  if (!output.write(text)) await once(output, 'drain');
}

function cellsOf(row: ExportRow): Record<InstallationCsvColumn, string> {
  const text = (value: string | null | undefined) => value ?? '';
  const ios = row.platform === 'ios';
  return {
    installation_id: row.installation_id,
    platform: row.platform,
    push_provider: pushProviderOf(row.platform, row.web_push_subscription !== null),
    push_token: text(row.push_token),
    web_push_endpoint: text(row.web_push_subscription?.endpoint),
    web_push_p256dh: text(row.web_push_subscription?.keys.p256dh),
    web_push_auth: text(row.web_push_subscription?.keys.auth),
    widget_push_token: text(row.widget_push_token),
    user_id: text(row.user_id),
    permission: row.permission,
    app_version: text(row.device.app_version),
    os_version: text(row.device.os_version),
    model: text(row.device.model),
    locale: text(row.device.locale),
    timezone: text(row.device.timezone),
    tags: row.tags.length > 0 ? JSON.stringify(row.tags) : '',
    properties: Object.keys(row.properties).length > 0 ? JSON.stringify(row.properties) : '',
    badge: ios ? String(row.badge) : '',
    live_activity_start_tokens: Object.keys(row.live_activity_start_tokens).length > 0 ? JSON.stringify(row.live_activity_start_tokens) : '',
    registered_at: text(iso(row.registered_at)),
    last_seen_at: text(iso(row.last_seen_at)),
    identifier_updated_at: text(iso(row.identifier_updated_at)),
    permission_updated_at: text(iso(row.permission_updated_at)),
    invalidated_at: text(iso(row.invalidated_at)),
    invalid_reason: text(row.invalid_reason),
  };
}
