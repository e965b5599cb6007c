import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { named } from '../common/sql/named';
import type { OperatorRole } from '../common/vocabulary';
import { AT, ID, OTHER_ID } from '../queries/fixtures';
import { GenerateSql, SqlFile } from '../queries/generate-sql';

/** A role for one app, or (`app_id` null) for every app. */
export interface Grant {
  app_id: string | null;
  role: OperatorRole;
}

export interface OperatorRow {
  id: string;
  email: string;
  bootstrap: boolean;
  disabled_at: Date | null;
  created_at: Date;
  grants: Grant[];
  has_password: boolean;
}

export interface SessionRow {
  id: string;
  csrf: string;
  expires_at: Date;
  operator_id: string;
  email: string;
  grants: Grant[];
}

export interface SessionListRow {
  id: string;
  method: string;
  address: string | null;
  user_agent: string | null;
  created_at: Date;
  expires_at: Date;
  revoked_at: Date | null;
}

export interface NewSession {
  operatorId: string;
  tokenHash: Buffer;
  csrf: string;
  method: string;
  address: string | null;
  userAgent: string | null;
  expiresAt: Date;
}

const GRANTS = `COALESCE((SELECT json_agg(json_build_object('app_id', g.app_id, 'role', g.role) ORDER BY g.app_id NULLS FIRST)
  FROM operator_grants g WHERE g.operator_id = o.id), '[]') AS grants`;
const OPERATOR_COLUMNS = `o.id, o.email, o.bootstrap, o.disabled_at, o.created_at, o.password_hash IS NOT NULL AS has_password, ${GRANTS}`;
const HASH = Buffer.alloc(32, 1);

/** Operators, their grants, sessions and invitations, and the domains OIDC admits (docs/api.md#271-operators). */
@Injectable()
@SqlFile('operators.repository.sql')
export class OperatorsRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /** A new operator with its grants, in one transaction; null when the e-mail is taken. */
  @GenerateSql({ params: ['ops@example.com', [{ app_id: null, role: 'viewer' }]], answers: [[{ id: ID }]] })
  insert(email: string, grants: Grant[]): Promise<string | null> {
    return this.db.transaction(async (manager) => {
      const rows: { id: string }[] = await manager.query(`INSERT INTO operators (email) VALUES ($1) ON CONFLICT ((lower(email))) DO NOTHING RETURNING id`, [
        email,
      ]);
      if (!rows[0]) return null;
      await this.setGrants(rows[0].id, grants, manager);
      return rows[0].id;
    });
  }

  /** The bootstrap owner (ADMIN_USER): created or found, marked, enabled, owner of every app. */
  @GenerateSql({ params: ['ops'], answers: [[{ id: ID }]] })
  upsertBootstrap(user: string): Promise<string> {
    return this.db.transaction(async (manager) => {
      const [row]: { id: string }[] = await manager.query(
        `INSERT INTO operators (email, bootstrap) VALUES ($1, true)
         ON CONFLICT ((lower(email))) DO UPDATE SET bootstrap = true, disabled_at = NULL, updated_at = now()
         RETURNING id`,
        [user],
      );
      await this.setGrants(row.id, [{ app_id: null, role: 'owner' }], manager);
      return row.id;
    });
  }

  /** Replaces an operator's grants with `grants`. */
  @GenerateSql({ params: [ID, [{ app_id: null, role: 'viewer' }]] })
  async setGrants(operatorId: string, grants: Grant[], manager: EntityManager = this.db.manager): Promise<void> {
    await manager.query(`DELETE FROM operator_grants WHERE operator_id = $1`, [operatorId]);
    await manager.query(
      `INSERT INTO operator_grants (operator_id, app_id, role)
       SELECT $1, g.app_id, g.role FROM json_to_recordset($2::json) AS g(app_id uuid, role text)`,
      [operatorId, JSON.stringify(grants)],
    );
  }

  @GenerateSql({ params: [] })
  list(): Promise<OperatorRow[]> {
    return this.db.query(`SELECT ${OPERATOR_COLUMNS} FROM operators o ORDER BY o.created_at, o.id`);
  }

  @GenerateSql({ params: [ID] })
  async find(id: string): Promise<OperatorRow | null> {
    const rows: OperatorRow[] = await this.db.query(`SELECT ${OPERATOR_COLUMNS} FROM operators o WHERE o.id = $1`, [id]);
    return rows[0] ?? null;
  }

  @GenerateSql({ params: ['ops@example.com'] })
  async findByEmail(email: string): Promise<(OperatorRow & { password_hash: string | null }) | null> {
    const rows: (OperatorRow & { password_hash: string | null })[] = await this.db.query(
      `SELECT ${OPERATOR_COLUMNS}, o.password_hash FROM operators o WHERE lower(o.email) = lower($1)`,
      [email],
    );
    return rows[0] ?? null;
  }

  /** Disables an operator and ends its sessions at once. */
  @GenerateSql({ params: [ID] })
  async disable(id: string): Promise<boolean> {
    const rows: unknown[] = await this.db.query(
      `WITH op AS (UPDATE operators SET disabled_at = COALESCE(disabled_at, now()), updated_at = now() WHERE id = $1 RETURNING id),
         ended AS (UPDATE operator_sessions SET revoked_at = now() WHERE operator_id IN (SELECT id FROM op) AND revoked_at IS NULL)
       SELECT id FROM op`,
      [id],
    );
    return rows.length > 0;
  }

  @GenerateSql({ params: [HASH, ID, AT] })
  async insertInvitation(tokenHash: Buffer, operatorId: string, expiresAt: Date): Promise<void> {
    await this.db.query(`INSERT INTO operator_invitations (token_hash, operator_id, expires_at) VALUES ($1, $2, $3)`, [tokenHash, operatorId, expiresAt]);
  }

  /** Uses an invitation once and sets its operator's password: the operator's id when it was valid (unused, unexpired, operator enabled). */
  @GenerateSql({ params: [HASH, '$argon2id$...'], answers: [[[{ operator_id: ID }], 1]] })
  acceptInvitation(tokenHash: Buffer, passwordHash: string): Promise<string | null> {
    return this.db.transaction(async (manager) => {
      // TypeORM answers an UPDATE with [rows, count].
      const [rows]: [{ operator_id: string }[], number] = await manager.query(
        `UPDATE operator_invitations i SET used_at = now()
         FROM operators o
         WHERE i.token_hash = $1 AND i.used_at IS NULL AND i.expires_at > now() AND o.id = i.operator_id AND o.disabled_at IS NULL
         RETURNING i.operator_id`,
        [tokenHash],
      );
      if (!rows[0]) return null;
      await manager.query(`UPDATE operators SET password_hash = $2, updated_at = now() WHERE id = $1`, [rows[0].operator_id, passwordHash]);
      return rows[0].operator_id;
    });
  }

  @GenerateSql({
    params: [{ operatorId: ID, tokenHash: HASH, csrf: 'csrf', method: 'password', address: '127.0.0.1', userAgent: 'ua', expiresAt: AT }],
    answers: [[{ id: ID }]],
  })
  async insertSession(session: NewSession): Promise<string> {
    const q = named(
      `INSERT INTO operator_sessions (operator_id, token_hash, csrf, method, address, user_agent, expires_at)
       VALUES (:operator_id, :token_hash, :csrf, :method, :address, :user_agent, :expires_at) RETURNING id`,
      {
        operator_id: session.operatorId,
        token_hash: session.tokenHash,
        csrf: session.csrf,
        method: session.method,
        address: session.address,
        user_agent: session.userAgent,
        expires_at: session.expiresAt,
      },
    );
    const [row]: { id: string }[] = await this.db.query(q.text, q.values);
    return row.id;
  }

  /** A live session (not revoked, not expired) of an enabled operator, with the operator's grants. */
  @GenerateSql({ params: [HASH] })
  async session(tokenHash: Buffer): Promise<SessionRow | null> {
    const rows: SessionRow[] = await this.db.query(
      `SELECT s.id, s.csrf, s.expires_at, o.id AS operator_id, o.email, ${GRANTS}
       FROM operator_sessions s JOIN operators o ON o.id = s.operator_id
       WHERE s.token_hash = $1 AND s.revoked_at IS NULL AND s.expires_at > now() AND o.disabled_at IS NULL`,
      [tokenHash],
    );
    return rows[0] ?? null;
  }

  @GenerateSql({ params: [ID] })
  sessions(operatorId: string): Promise<SessionListRow[]> {
    return this.db.query(
      `SELECT id, method, address, user_agent, created_at, expires_at, revoked_at FROM operator_sessions
       WHERE operator_id = $1 AND revoked_at IS NULL AND expires_at > now() ORDER BY created_at DESC, id LIMIT 100`,
      [operatorId],
    );
  }

  @GenerateSql({ params: [OTHER_ID, ID] })
  async revokeSession(sessionId: string, operatorId: string): Promise<boolean> {
    const [, count]: [unknown, number] = await this.db.query(
      `UPDATE operator_sessions SET revoked_at = now() WHERE id = $1 AND operator_id = $2 AND revoked_at IS NULL`,
      [sessionId, operatorId],
    );
    return count > 0;
  }

  @GenerateSql({ params: [] })
  domains(): Promise<{ domain: string; role: OperatorRole; created_at: Date }[]> {
    return this.db.query(`SELECT domain, role, created_at FROM operator_domains ORDER BY domain`);
  }

  @GenerateSql({ params: ['example.com'] })
  async domain(domain: string): Promise<OperatorRole | null> {
    const rows: { role: OperatorRole }[] = await this.db.query(`SELECT role FROM operator_domains WHERE domain = lower($1)`, [domain]);
    return rows[0]?.role ?? null;
  }

  @GenerateSql({ params: ['example.com', 'viewer'] })
  async allowDomain(domain: string, role: OperatorRole): Promise<void> {
    await this.db.query(`INSERT INTO operator_domains (domain, role) VALUES (lower($1), $2) ON CONFLICT (domain) DO UPDATE SET role = $2`, [domain, role]);
  }

  @GenerateSql({ params: ['example.com'] })
  async removeDomain(domain: string): Promise<boolean> {
    const [, count]: [unknown, number] = await this.db.query(`DELETE FROM operator_domains WHERE domain = lower($1)`, [domain]);
    return count > 0;
  }
}
