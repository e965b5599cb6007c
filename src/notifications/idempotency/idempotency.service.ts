import { Injectable } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { IdempotencyConflictError } from '../../common/errors';
import { IdempotencyRepository } from './idempotency.repository';

/** How long a claimed key blocks others before a retry of the same request may take it over. */
const CLAIM_TIMEOUT_SECONDS = 60;
const RETENTION_HOURS = 24;

/**
 * A replay carries the first answer's status and body text, exactly as first sent; `stored`: the
 * key's request stored its send and died before its answer was stored, so the send is the answer.
 */
export type Claim = { kind: 'claimed' } | { kind: 'replay'; status: number; body: string } | { kind: 'stored'; notificationId: string };

/** The answer while another request holds the key (docs/api.md#idempotency). */
export const keyInProgress = () => new IdempotencyConflictError('A request with this idempotency key is already in progress.');

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
 * `Idempotency-Key` handling (docs/api.md#idempotency): claimed atomically, linked to its send by
 * the statement that stores it, then answered; a linked key is never taken over
 * (docs/decisions/0014-idempotency-key-linked-then-answered.md).
 */
@Injectable()
export class IdempotencyService {
  constructor(private readonly keys: IdempotencyRepository) {}

  async claim(appId: string, key: string, hash: string): Promise<Claim> {
    for (let attempt = 0; attempt < 3; attempt++) {
      if (await this.keys.claim(appId, key, hash, CLAIM_TIMEOUT_SECONDS, RETENTION_HOURS)) return { kind: 'claimed' };

      const existing = await this.keys.find(appId, key);
      if (!existing) continue; // released in between: try to claim again
      if (existing.request_hash !== hash) {
        throw new IdempotencyConflictError('This idempotency key was already used with a different request.');
      }
      if (existing.status !== 'completed') {
        if (existing.notification_id && existing.lock_expired) return { kind: 'stored', notificationId: existing.notification_id };
        throw keyInProgress();
      }
      return { kind: 'replay', status: existing.response_status!, body: existing.response_body! };
    }
    throw keyInProgress();
  }

  /** Stores the key's answer; false when another request answered it first (then claim again for its answer). */
  complete(appId: string, key: string, status: number, body: string): Promise<boolean> {
    return this.keys.complete(appId, key, status, body);
  }

  async release(appId: string, key: string): Promise<void> {
    await this.keys.release(appId, key);
  }
}
