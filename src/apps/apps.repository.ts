import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { ID } from '../queries/fixtures';
import { GenerateSql, SqlFile } from '../queries/generate-sql';

/** An `apps` row as PostgreSQL returns it. */
export interface AppRow {
  id: string;
  name: string;
  created_at: Date;
}

/** An app's settings columns (docs/api.md#app-settings); the secrets sealed. */
export interface AppSettingsRow {
  id: string;
  name: string;
  frequency_cap_max: number | null;
  frequency_cap_hours: number | null;
  quiet_hours_start: string | null;
  quiet_hours_end: string | null;
  identity_verification: boolean;
  inbox_days: number;
  identity_secret_enc: string | null;
  identity_secret_previous_enc: string | null;
}

/** The settings a change sets; an absent key keeps its column. */
export interface AppSettingsChange {
  frequencyCap?: { max: number; hours: number } | null;
  quietHours?: { start: string; end: string } | null;
  identityVerification?: boolean;
  inboxDays?: number;
}

const SETTINGS_COLUMNS = `id, name, frequency_cap_max, frequency_cap_hours, quiet_hours_start, quiet_hours_end,
  identity_verification, inbox_days, identity_secret_enc, identity_secret_previous_enc`;

/** What a deleted app held. */
export interface DeletedCounts {
  tokens: number;
  installations: number;
  notifications: number;
  deliveries: number;
}

@Injectable()
@SqlFile('apps.repository.sql')
export class AppsRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  @GenerateSql({ params: ['Shop'] })
  async insert(name: string): Promise<AppRow> {
    const [row] = await this.db.query<[AppRow]>(`INSERT INTO apps (name) VALUES ($1) RETURNING id, name, created_at`, [name]);
    return row;
  }

  @GenerateSql({ params: [] })
  list(): Promise<AppRow[]> {
    return this.db.query<AppRow[]>(`SELECT id, name, created_at FROM apps ORDER BY created_at, id`);
  }

  @GenerateSql({ params: [ID] })
  async find(id: string): Promise<AppRow | undefined> {
    const [row] = await this.db.query<AppRow[]>(`SELECT id, name, created_at FROM apps WHERE id = $1`, [id]);
    return row;
  }

  /**
   * Deletes the app and all it owns in one statement, counting what it held in the same snapshot; badge counts and staged audiences
   * have no foreign key to cascade from (migrations InstallationBadgesWithoutKey, FilterSendAudiences). Undefined when no such app.
   */
  @GenerateSql({ params: [ID] })
  async delete(id: string): Promise<(AppRow & DeletedCounts) | undefined> {
    const [row]: (AppRow & DeletedCounts)[] = await this.db.query(
      `WITH held AS (
         SELECT (SELECT count(*) FROM api_tokens WHERE app_id = $1)::int AS tokens,
                (SELECT count(*) FROM installations WHERE app_id = $1)::int AS installations,
                (SELECT count(*) FROM notifications WHERE app_id = $1)::int AS notifications,
                (SELECT count(*) FROM deliveries d JOIN notifications n ON n.id = d.notification_id WHERE n.app_id = $1)::int AS deliveries
       ), uncounted AS (
         DELETE FROM installation_badges b USING installations i WHERE i.id = b.installation_id AND i.app_id = $1
       ), unstaged AS (
         DELETE FROM fanout_audiences f USING notifications n WHERE n.id = f.notification_id AND n.app_id = $1
       ), gone AS (
         DELETE FROM apps WHERE id = $1 RETURNING id, name, created_at
       )
       SELECT gone.*, held.* FROM gone, held`,
      [id],
    );
    return row;
  }

  @GenerateSql({ params: [ID] })
  async settings(id: string): Promise<AppSettingsRow | undefined> {
    const [row] = await this.db.query<AppSettingsRow[]>(`SELECT ${SETTINGS_COLUMNS} FROM apps WHERE id = $1`, [id]);
    return row;
  }

  @GenerateSql({
    params: [ID, { frequencyCap: { max: 3, hours: 24 }, quietHours: { start: '22:00', end: '07:00' }, identityVerification: true, inboxDays: 30 }],
  })
  async updateSettings(id: string, change: AppSettingsChange): Promise<AppSettingsRow | undefined> {
    const cap = change.frequencyCap;
    const quiet = change.quietHours;
    const [[row]]: [AppSettingsRow[], number] = await this.db.query(
      `UPDATE apps SET
         frequency_cap_max = CASE WHEN $2 THEN $3::smallint ELSE frequency_cap_max END,
         frequency_cap_hours = CASE WHEN $2 THEN $4::smallint ELSE frequency_cap_hours END,
         quiet_hours_start = CASE WHEN $5 THEN $6::character(5) ELSE quiet_hours_start END,
         quiet_hours_end = CASE WHEN $5 THEN $7::character(5) ELSE quiet_hours_end END,
         identity_verification = coalesce($8::boolean, identity_verification),
         inbox_days = coalesce($9::smallint, inbox_days)
       WHERE id = $1
       RETURNING ${SETTINGS_COLUMNS}`,
      [
        id,
        cap !== undefined,
        cap?.max ?? null,
        cap?.hours ?? null,
        quiet !== undefined,
        quiet?.start ?? null,
        quiet?.end ?? null,
        change.identityVerification ?? null,
        change.inboxDays ?? null,
      ],
    );
    return row;
  }

  /** Under a row lock, writes the sealed pair `next(row)` answers (null: leaves them); the row as written, undefined when no such app. */
  @GenerateSql({ params: [ID, () => ({ current: 'sealed', previous: null })], answers: [[{ id: ID }]] })
  async changeIdentitySecrets(
    id: string,
    next: (row: AppSettingsRow) => { current: string | null; previous: string | null } | null,
  ): Promise<AppSettingsRow | undefined> {
    return this.db.transaction(async (manager) => {
      const [row]: AppSettingsRow[] = await manager.query(`SELECT ${SETTINGS_COLUMNS} FROM apps WHERE id = $1 FOR UPDATE`, [id]);
      if (!row) return undefined;
      const pair = next(row);
      if (!pair) return row;
      const [[written]]: [AppSettingsRow[], number] = await manager.query(
        `UPDATE apps SET identity_secret_enc = $2, identity_secret_previous_enc = $3 WHERE id = $1 RETURNING ${SETTINGS_COLUMNS}`,
        [id, pair.current, pair.previous],
      );
      return written;
    });
  }

  @GenerateSql({ params: [ID] })
  async exists(id: string): Promise<boolean> {
    const rows: unknown[] = await this.db.query(`SELECT 1 FROM apps WHERE id = $1`, [id]);
    return rows.length > 0;
  }
}
