import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { createHash } from 'node:crypto';
import { DataSource, EntityManager } from 'typeorm';
import { IdempotencyConflictError } from '../common/errors';

/** How long a claimed key blocks others before a retry of the same request may take it over. */
const CLAIM_TIMEOUT_SECONDS = 60;
const RETENTION_HOURS = 24;

export type Claim = { kind: 'claimed' } | { kind: 'replay'; status: number; body: unknown };

/** JSON with object keys sorted, so bodies that differ only in key order compare equal. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

export const requestHash = (body: unknown) => createHash('sha256').update(canonicalJson(body)).digest('hex');

/**
 * `Idempotency-Key` handling (docs/api.md 5.3). A key is claimed atomically (primary key + ON
 * CONFLICT), completed in the same transaction that stores the notification, and released if
 * that fails, so only successful responses are remembered.
 */
@Injectable()
export class IdempotencyService {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  async claim(appId: string, key: string, hash: string): Promise<Claim> {
    for (let attempt = 0; attempt < 3; attempt++) {
      // Takes the key when it is new, expired, or claimed by a request that died with the same body.
      const claimed = await this.db.query(
        `INSERT INTO idempotency_keys AS k (app_id, key, request_hash, status, locked_until, expires_at)
         VALUES ($1, $2, $3, 'in_progress', now() + make_interval(secs => $4), now() + make_interval(hours => $5))
         ON CONFLICT (app_id, key) DO UPDATE SET
           request_hash = EXCLUDED.request_hash, status = 'in_progress', response_status = NULL, response_body = NULL,
           locked_until = EXCLUDED.locked_until, created_at = now(), expires_at = EXCLUDED.expires_at
         WHERE k.expires_at <= now()
            OR (k.status = 'in_progress' AND k.locked_until <= now() AND k.request_hash = EXCLUDED.request_hash)
         RETURNING key`,
        [appId, key, hash, CLAIM_TIMEOUT_SECONDS, RETENTION_HOURS],
      );
      if (claimed.length > 0) return { kind: 'claimed' };

      const [existing] = await this.db.query(
        `SELECT request_hash, status, response_status, response_body FROM idempotency_keys WHERE app_id = $1 AND key = $2`,
        [appId, key],
      );
      if (!existing) continue; // released in between: try to claim again
      if (existing.request_hash !== hash) {
        throw new IdempotencyConflictError('This idempotency key was already used with a different request.');
      }
      if (existing.status !== 'completed') {
        throw new IdempotencyConflictError('A request with this idempotency key is already in progress.');
      }
      return { kind: 'replay', status: existing.response_status, body: existing.response_body };
    }
    throw new IdempotencyConflictError('A request with this idempotency key is already in progress.');
  }

  /** Stores the response, inside the caller's transaction. */
  async complete(manager: EntityManager, appId: string, key: string, status: number, body: unknown): Promise<void> {
    await manager.query(
      `UPDATE idempotency_keys SET status = 'completed', response_status = $3, response_body = $4::jsonb
       WHERE app_id = $1 AND key = $2`,
      [appId, key, status, JSON.stringify(body)],
    );
  }

  async release(appId: string, key: string): Promise<void> {
    await this.db.query(`DELETE FROM idempotency_keys WHERE app_id = $1 AND key = $2 AND status = 'in_progress'`, [appId, key]);
  }
}
