import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { AppCredentials } from './app-credentials.entity';
import { ID } from '../queries/fixtures';
import { GenerateSql, SqlFile } from '../queries/generate-sql';

/** The columns holding secrets sealed under APP_KEY (secret-box.ts). */
export const SEALED_COLUMNS = ['apns_private_key_enc', 'fcm_service_account_enc', 'vapid_private_key_enc', 'hms_client_secret_enc'] as const;
export type SealedColumn = (typeof SEALED_COLUMNS)[number];

export type SealedRow = { app_id: string } & Record<SealedColumn, string | null>;

/** Thrown by `upsert` when the app does not exist (the foreign key refused the row). */
export class UnknownAppError extends Error {}

/** The `app_credentials` table. Secrets arrive and leave sealed; this class never sees them in clear. */
@Injectable()
@SqlFile('credentials.repository.sql')
export class CredentialsRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /** Hands each app's sealed secrets, locked, to `reseal` (the columns to rewrite); one transaction, so a thrown error changes nothing. */
  @GenerateSql({
    params: [() => new Map([['apns_private_key_enc', 'v1:sealed']])],
    answers: [[{ app_id: ID, apns_private_key_enc: 'v1:old', fcm_service_account_enc: null, vapid_private_key_enc: null, hms_client_secret_enc: null }]],
  })
  async resealAll(reseal: (row: SealedRow) => Map<SealedColumn, string>): Promise<void> {
    await this.db.transaction(async (manager) => {
      const rows: SealedRow[] = await manager.query(`SELECT app_id, ${SEALED_COLUMNS.join(', ')} FROM app_credentials ORDER BY app_id FOR UPDATE`);
      for (const row of rows) {
        const changed = reseal(row);
        if (changed.size === 0) continue;
        const columns = [...changed.keys()];
        await manager.query(
          `UPDATE app_credentials SET ${columns.map((column, i) => `"${column}" = $${i + 2}`).join(', ')}, updated_at = now() WHERE app_id = $1`,
          [row.app_id, ...changed.values()],
        );
      }
    });
  }

  /** Clears one provider's columns (`columns`, all nullable); false when the app has no credentials row. */
  @GenerateSql({ params: [ID, ['apns_key_id', 'apns_team_id', 'apns_topic', 'apns_production', 'apns_private_key_enc']] })
  async clear(appId: string, columns: readonly string[]): Promise<boolean> {
    const [, affected]: [unknown, number] = await this.db.query(
      `UPDATE app_credentials SET ${columns.map((column) => `"${column}" = NULL`).join(', ')}, updated_at = now() WHERE app_id = $1`,
      [appId],
    );
    return affected > 0;
  }

  async find(appId: string): Promise<AppCredentials | null> {
    return this.db.getRepository(AppCredentials).findOneBy({ appId });
  }

  /** One upsert of the given columns only, so two providers' updates never overwrite each other; `keepExisting` ones follow a stored VAPID public key. */
  @GenerateSql({
    params: [ID, new Map(Object.entries({ vapid_subject: 'mailto:ops@example.com', vapid_public_key: 'public' })), new Set(['vapid_public_key'])],
  })
  async upsert(appId: string, values: Map<string, unknown>, keepExisting: Set<string>): Promise<void> {
    const columns = [...values.keys()];
    const params = [appId, ...values.values()];
    const assignments = columns.map((column) =>
      keepExisting.has(column)
        ? `"${column}" = CASE WHEN app_credentials.vapid_public_key IS NULL THEN EXCLUDED."${column}" ELSE app_credentials."${column}" END`
        : `"${column}" = EXCLUDED."${column}"`,
    );
    try {
      await this.db.query(
        `INSERT INTO app_credentials (app_id, ${columns.map((c) => `"${c}"`).join(', ')})
         VALUES (${params.map((_, i) => `$${i + 1}`).join(', ')})
         ON CONFLICT (app_id) DO UPDATE SET ${assignments.join(', ')}, updated_at = now()`,
        params,
      );
    } catch (error) {
      if ((error as { code?: string }).code === '23503') throw new UnknownAppError(appId);
      throw error;
    }
  }
}
