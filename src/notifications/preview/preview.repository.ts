import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { Platform } from '../../common/platform';
import { named } from '../../common/sql/named';
import { ID } from '../../queries/fixtures';
import { GenerateSql, SqlFile } from '../../queries/generate-sql';

/** What a preview needs of one installation: what a delivery's claim reads of it (docs/api.md#preview). */
export interface PreviewInstallationRow {
  platform: Platform;
  holds_subscription: boolean;
  locale: string | null;
  user_id: string | null;
  app_version: string | null;
  properties: Record<string, unknown> | null;
}

@Injectable()
@SqlFile('preview.repository.sql')
export class PreviewRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /** The app's live installation with this id (yours, as registered); undefined when none. */
  @GenerateSql({ params: [ID, 'device-1'] })
  async installation(appId: string, installationId: string): Promise<PreviewInstallationRow | undefined> {
    const q = named(
      `SELECT platform, web_push_subscription IS NOT NULL AS holds_subscription, device ->> 'locale' AS locale, user_id,
         device ->> 'app_version' AS app_version, properties
       FROM installations WHERE app_id = :app_id AND installation_id = :installation_id AND deleted_at IS NULL`,
      { app_id: appId, installation_id: installationId },
    );
    const [row] = await this.db.query<PreviewInstallationRow[]>(q.text, q.values);
    return row;
  }
}
