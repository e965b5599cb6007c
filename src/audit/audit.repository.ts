import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { named } from '../common/sql/named';
import type { AuditAction, AuditActorKind } from '../common/vocabulary';
import { AT, ID } from '../queries/fixtures';
import { GenerateSql, SqlFile } from '../queries/generate-sql';

/** An `audit_log` row as PostgreSQL returns it (id as text: a bigint). */
export interface AuditRow {
  id: string;
  at: Date;
  actor_kind: AuditActorKind;
  actor_id: string | null;
  actor: string;
  action: AuditAction;
  app_id: string | null;
  target: string | null;
  address: string | null;
  details: Record<string, unknown>;
}

export type NewAuditRow = Omit<AuditRow, 'id' | 'at'>;

/** A list's filters; `apps` (when set) the apps the reader may see, entries of no app included only when `withoutApp`. */
export interface AuditQuery {
  actor?: string;
  action?: string;
  appId?: string;
  apps?: string[];
  withoutApp: boolean;
  from?: Date;
  to?: Date;
  before?: string;
  limit: number;
}

const COLUMNS = `id::text, at, actor_kind, actor_id, actor, action, app_id, target, address, details`;

/** The audit log's statements (docs/api.md#275-audit-log). */
@Injectable()
@SqlFile('audit.repository.sql')
export class AuditRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  @GenerateSql({
    params: [
      {
        actor_kind: 'operator',
        actor_id: ID,
        actor: 'ops@example.com',
        action: 'topic.put',
        app_id: ID,
        target: 'promotions',
        address: '127.0.0.1',
        details: {},
      },
    ],
  })
  async insert(row: NewAuditRow): Promise<void> {
    const q = named(
      `INSERT INTO audit_log (actor_kind, actor_id, actor, action, app_id, target, address, details)
       VALUES (:actor_kind, :actor_id, :actor, :action, :app_id, :target, :address, :details)`,
      { ...row, details: JSON.stringify(row.details) },
    );
    await this.db.query(q.text, q.values);
  }

  /** Newest first; every filter a parameter that is NULL when unset. */
  @GenerateSql({ params: [{ actor: 'ops', action: 'topic.put', appId: ID, apps: [ID], withoutApp: false, from: AT, to: AT, before: '100', limit: 50 }] })
  list(query: AuditQuery): Promise<AuditRow[]> {
    const q = named(
      `SELECT ${COLUMNS} FROM audit_log
       WHERE (:actor::text IS NULL OR actor ILIKE '%' || :actor || '%')
         AND (:action::text IS NULL OR action = :action)
         AND (:app_id::uuid IS NULL OR app_id = :app_id)
         AND (:apps::uuid[] IS NULL OR app_id = ANY(:apps) OR (:without_app AND app_id IS NULL))
         AND (:from::timestamptz IS NULL OR at >= :from)
         AND (:to::timestamptz IS NULL OR at < :to)
         AND (:before::bigint IS NULL OR id < :before)
       ORDER BY id DESC LIMIT :limit`,
      {
        actor: query.actor ?? null,
        action: query.action ?? null,
        app_id: query.appId ?? null,
        apps: query.apps ?? null,
        without_app: query.withoutApp,
        from: query.from ?? null,
        to: query.to ?? null,
        before: query.before ?? null,
        limit: query.limit,
      },
    );
    return this.db.query(q.text, q.values);
  }
}
