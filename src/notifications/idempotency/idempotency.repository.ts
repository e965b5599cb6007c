import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { COMMIT_WITHOUT_FLUSH } from '../../common/asynchronous-commit';
import { preparedQuery } from '../../common/prepared-query';
import { GenerateSql, SqlFile } from '../../queries/generate-sql';
import { OTHER_ID } from '../../queries/fixtures';

/** An `idempotency_keys` row, as a claim that lost finds it. */
export interface IdempotencyKeyRow {
  request_hash: string;
  status: 'in_progress' | 'completed';
  response_status: number | null;
  /** JSON text, exactly as first sent. */
  response_body: string | null;
  /** The send its request stored (in progress: not answered yet). */
  notification_id: string | null;
  /** Its claim's lock has run out: the request that holds it is taken for dead. */
  lock_expired: boolean;
}

/** A claimed key takes its answer. */
const COMPLETE_SQL = `UPDATE idempotency_keys SET status = 'completed', response_status = $3, response_body = $4
       WHERE app_id = $1 AND key = $2 AND status = 'in_progress'`;

/** `idempotency_keys` (docs/api.md#idempotency), for sends and Live Activity updates alike. */
@Injectable()
@SqlFile('idempotency.repository.sql')
export class IdempotencyRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /**
   * Takes the key when it is new, expired, or claimed by a request that died with the same body
   * (`lockSeconds` after its claim). False when someone else holds it. Commits without waiting
   * for the WAL flush (docs/decisions/0012-claims-commit-without-waiting-for-wal.md).
   */
  @GenerateSql({ params: [OTHER_ID, 'key', 'hash', 30, 24] })
  async claim(appId: string, key: string, hash: string, lockSeconds: number, retentionHours: number): Promise<boolean> {
    const claimed: unknown[] = await this.db.query(
      `INSERT INTO idempotency_keys AS k (app_id, key, request_hash, status, locked_until, expires_at)
       SELECT $1::uuid, $2::text, $3::text, 'in_progress', now() + make_interval(secs => $4::float8), now() + make_interval(hours => $5::int)
       WHERE ${COMMIT_WITHOUT_FLUSH}
       ON CONFLICT (app_id, key) DO UPDATE SET
         request_hash = EXCLUDED.request_hash, status = 'in_progress', response_status = NULL, response_body = NULL, notification_id = NULL,
         locked_until = EXCLUDED.locked_until, created_at = now(), expires_at = EXCLUDED.expires_at
       WHERE k.expires_at <= now()
          OR (k.status = 'in_progress' AND k.locked_until <= now() AND k.request_hash = EXCLUDED.request_hash AND k.notification_id IS NULL)
       RETURNING key`,
      [appId, key, hash, lockSeconds, retentionHours],
    );
    return claimed.length > 0;
  }

  @GenerateSql({ params: [OTHER_ID, 'key'] })
  async find(appId: string, key: string): Promise<IdempotencyKeyRow | undefined> {
    const [row]: IdempotencyKeyRow[] = await this.db.query(
      `SELECT request_hash, status, response_status, response_body, notification_id, locked_until <= now() AS lock_expired
       FROM idempotency_keys WHERE app_id = $1 AND key = $2`,
      [appId, key],
    );
    return row;
  }

  /**
   * Stores the answer of the key's request, once what it stored is stored; false when the key had
   * been answered already. Alone, without waiting for the WAL flush (docs/decisions/0012);
   * `within` a transaction (a Live Activity update's), that transaction's commit decides.
   */
  @GenerateSql({ params: [OTHER_ID, 'key', 202, '{}'] })
  async complete(appId: string, key: string, status: number, body: string, within?: EntityManager): Promise<boolean> {
    if (within) {
      const [, affected]: [unknown[], number] = await within.query(COMPLETE_SQL, [appId, key, status, body]);
      return affected > 0;
    }
    const { rowCount } = await preparedQuery(this.db, 'idempotency_keys_complete', `${COMPLETE_SQL} AND ${COMMIT_WITHOUT_FLUSH}`, [appId, key, status, body]);
    return rowCount > 0;
  }

  /** Forgets a claim that has no response and stored no send (its send failed). */
  @GenerateSql({ params: [OTHER_ID, 'key'] })
  async release(appId: string, key: string): Promise<void> {
    await this.db.query(`DELETE FROM idempotency_keys WHERE app_id = $1 AND key = $2 AND status = 'in_progress' AND notification_id IS NULL`, [appId, key]);
  }
}
