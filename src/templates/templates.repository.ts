import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { named } from '../common/sql/named';
import { ID } from '../queries/fixtures';
import { GenerateSql, SqlFile } from '../queries/generate-sql';

/** A template version as the API shows it: `created_at` is version 1's, `updated_at` this version's. */
export interface TemplateRow {
  key: string;
  version: number;
  name: string;
  notification: { title: string; body: string; image_url?: string | null; action_url?: string | null };
  localizations: Record<string, Record<string, string>> | null;
  data: Record<string, unknown> | null;
  created_at: Date;
  updated_at: Date;
}

export interface TemplateFields {
  name: string;
  notification: TemplateRow['notification'];
  localizations: TemplateRow['localizations'];
  data: TemplateRow['data'];
}

/** `v` a template_versions row; version 1's time is the template's. */
const COLUMNS = `v.key, v.version, v.name, v.notification, v.localizations, v.data,
  (SELECT min(f.created_at) FROM template_versions f WHERE f.app_id = v.app_id AND f.key = v.key) AS created_at, v.created_at AS updated_at`;

/** Serialises one template's saves, so each version number is taken once. */
const LOCK = `SELECT pg_advisory_xact_lock(hashtextextended('templates:' || :app_id::text || ':' || :key::text, 0))`;

/** A new version unless the latest has the same content; answers the latest either way (`created`: version 1 written now). */
const SAVE = `WITH latest AS (
    SELECT version, name, notification, localizations::text AS localizations, data FROM template_versions
    WHERE app_id = :app_id::uuid AND key = :key::text ORDER BY version DESC LIMIT 1
  ), written AS (
    INSERT INTO template_versions (app_id, key, version, name, notification, localizations, data)
    SELECT :app_id::uuid, :key::text, COALESCE((SELECT version FROM latest), 0) + 1, :name::text, :notification::jsonb, :localizations::json, :data::jsonb
    WHERE NOT EXISTS (
      SELECT 1 FROM latest l WHERE l.name = :name::text AND l.notification = :notification::jsonb
        AND l.localizations IS NOT DISTINCT FROM :localizations::json::text AND l.data IS NOT DISTINCT FROM :data::jsonb)
    RETURNING version
  )
  SELECT (SELECT version FROM written) AS written, (SELECT version FROM latest) AS previous`;

const FIND = `SELECT ${COLUMNS} FROM template_versions v
  WHERE v.app_id = :app_id AND v.key = :key AND (:version::int IS NULL OR v.version = :version::int)
  ORDER BY v.version DESC LIMIT 1`;

/** `template_versions`, written only here (docs/architecture.md, "Tables and their writers"). */
@Injectable()
@SqlFile('templates.repository.sql')
export class TemplatesRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /** The version now latest, and whether this save wrote it (`changed`) as the template's first (`created`). */
  @GenerateSql({
    params: [ID, 'order_shipped', { name: 'Order shipped', notification: { title: 'Hi {{ vars.name }}', body: 'Shipped' }, localizations: null, data: null }],
    answers: [[], [{ written: 1, previous: null }], []],
  })
  async save(appId: string, key: string, fields: TemplateFields): Promise<{ row: TemplateRow; created: boolean; changed: boolean }> {
    return this.db.transaction(async (manager) => {
      const lock = named(LOCK, { app_id: appId, key });
      await manager.query(lock.text, lock.values);
      const save = named(SAVE, {
        app_id: appId,
        key,
        name: fields.name,
        notification: JSON.stringify(fields.notification),
        localizations: fields.localizations === null ? null : JSON.stringify(fields.localizations),
        data: fields.data === null ? null : JSON.stringify(fields.data),
      });
      const [saved] = await manager.query<{ written: number | null; previous: number | null }[]>(save.text, save.values);
      const find = named(FIND, { app_id: appId, key, version: null });
      const [row] = await manager.query<TemplateRow[]>(find.text, find.values);
      return { row, created: saved.written === 1, changed: saved.written !== null };
    });
  }

  /** Each template's latest version, by key. */
  @GenerateSql({ params: [ID] })
  list(appId: string): Promise<TemplateRow[]> {
    const q = named(
      `SELECT ${COLUMNS} FROM (SELECT DISTINCT ON (key) * FROM template_versions WHERE app_id = :app_id ORDER BY key, version DESC) v ORDER BY v.key`,
      { app_id: appId },
    );
    return this.db.query<TemplateRow[]>(q.text, q.values);
  }

  /** The latest version, or version `version`. */
  @GenerateSql({ params: [ID, 'order_shipped', null] })
  @GenerateSql({ name: 'a version', params: [ID, 'order_shipped', 2] })
  async find(appId: string, key: string, version: number | null): Promise<TemplateRow | undefined> {
    const q = named(FIND, { app_id: appId, key, version });
    const [row] = await this.db.query<TemplateRow[]>(q.text, q.values);
    return row;
  }

  /** Every version; false when there was none. Sends made from it keep their copy of its texts. */
  @GenerateSql({ params: [ID, 'order_shipped'], answers: [[{ deleted: 1 }]] })
  async delete(appId: string, key: string): Promise<boolean> {
    const q = named(
      `WITH gone AS (DELETE FROM template_versions WHERE app_id = :app_id AND key = :key RETURNING 1) SELECT count(*)::int AS deleted FROM gone`,
      { app_id: appId, key },
    );
    const [row] = await this.db.query<{ deleted: number }[]>(q.text, q.values);
    return row.deleted > 0;
  }
}
