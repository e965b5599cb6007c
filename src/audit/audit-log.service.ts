import { Injectable } from '@nestjs/common';
import { userInfo } from 'node:os';
import { scrubSecrets } from '../common/secrets';
import type { AuditAction, AuditActorKind } from '../common/vocabulary';
import { AuditQuery, AuditRepository, AuditRow } from './audit.repository';

/** Who made a change. */
export interface AuditActor {
  kind: AuditActorKind;
  /** The operator's or token's id; none for the CLI. */
  id: string | null;
  /** The operator's e-mail, the token's name (or id), `cli (<system user>)`. */
  label: string;
  /** Where from: the peer address of the request (the one the login limit counts); none for the CLI. */
  address: string | null;
}

/** One change: what, in which app (none for operators and sessions), on what, and what was said about it (never a secret). */
export interface AuditChange {
  action: AuditAction;
  appId?: string | null;
  target?: string | null;
  details?: Record<string, unknown>;
}

/** An entry as the dashboard and `GET /api/v1/audit-log` show it. */
export interface AuditEntry {
  id: string;
  at: string;
  actor: { kind: AuditActorKind; id: string | null; label: string };
  action: AuditAction;
  app_id: string | null;
  target: string | null;
  address: string | null;
  details: Record<string, unknown>;
}

export interface AuditPage {
  data: AuditEntry[];
  meta: { next_cursor: string | null };
}

/** The CLI as an actor: the system user who ran it. */
export function cliActor(): AuditActor {
  let user = 'unknown';
  try {
    user = userInfo().username;
  } catch {
    // A container user without a passwd entry.
  }
  return { kind: 'cli', id: null, label: `cli (${user})`, address: null };
}

export const entryOf = (row: AuditRow): AuditEntry => ({
  id: row.id,
  at: row.at.toISOString(),
  actor: { kind: row.actor_kind, id: row.actor_id, label: row.actor },
  action: row.action,
  app_id: row.app_id,
  target: row.target,
  address: row.address,
  details: row.details,
});

/** The one home of the audit log (docs/api.md#275-audit-log): every change by an operator or the CLI is recorded here. */
@Injectable()
export class AuditLog {
  constructor(private readonly repository: AuditRepository) {}

  /** Details pass through the log's secret censor: a secret-named field is stored as `[Redacted]`, never its value. */
  async record(actor: AuditActor, change: AuditChange): Promise<void> {
    await this.repository.insert({
      actor_kind: actor.kind,
      actor_id: actor.id,
      actor: actor.label.slice(0, 320),
      action: change.action,
      app_id: change.appId ?? null,
      target: change.target?.slice(0, 255) ?? null,
      address: actor.address?.slice(0, 64) ?? null,
      details: scrubSecrets(change.details ?? {}),
    });
  }

  /** Newest first, `limit` per page; the cursor is the last entry's id. */
  async list(query: Omit<AuditQuery, 'limit' | 'before'> & { cursor?: string; limit: number }): Promise<AuditPage> {
    const rows = await this.repository.list({ ...query, before: query.cursor, limit: query.limit + 1 });
    const page = rows.slice(0, query.limit);
    return { data: page.map(entryOf), meta: { next_cursor: rows.length > query.limit ? page[page.length - 1].id : null } };
  }
}
