import { Injectable, Logger } from '@nestjs/common';
import { createHash, randomBytes } from 'node:crypto';
import { Clock } from '../common/time';
import { AuthContext } from './auth-context';
import { TokenCache } from './token-cache';
import { TokenRow, TokensRepository } from './tokens.repository';

const TOKEN_PREFIX = 'pns_';
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const LAST_USED_RESOLUTION_MS = 60_000;

export interface TokenSummary {
  id: string;
  app_id: string;
  name: string | null;
  abilities: string[];
  created_at: string;
  expires_at: string | null;
  revoked_at: string | null;
  last_used_at: string | null;
}

export const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');

/** 256 random bits in base62. */
export function generateToken(): string {
  let n = BigInt(`0x${randomBytes(32).toString('hex')}`);
  let out = '';
  while (out.length < 43) {
    out = BASE62[Number(n % 62n)] + out;
    n /= 62n;
  }
  return TOKEN_PREFIX + out;
}

const summary = (row: TokenRow): TokenSummary => ({
  id: row.id,
  app_id: row.app_id,
  name: row.name,
  abilities: row.abilities,
  created_at: row.created_at.toISOString(),
  expires_at: row.expires_at?.toISOString() ?? null,
  revoked_at: row.revoked_at?.toISOString() ?? null,
  last_used_at: row.last_used_at?.toISOString() ?? null,
});

/** Only SHA-256 hashes are stored. */
@Injectable()
export class TokensService {
  private readonly logger = new Logger(TokensService.name);
  private readonly recording = new Set<string>();

  constructor(
    private readonly tokens: TokensRepository,
    private readonly cache: TokenCache,
    private readonly clock: Clock = new Clock(),
  ) {}

  async create(input: { appId: string; abilities: string[]; name?: string | null; expiresInDays?: number }) {
    const token = generateToken();
    const row = await this.tokens.insert({
      appId: input.appId,
      name: input.name ?? null,
      tokenHash: hashToken(token),
      abilities: input.abilities,
      expiresInDays: input.expiresInDays ?? null,
    });
    return { ...summary(row), token };
  }

  async list(appId: string): Promise<TokenSummary[]> {
    return (await this.tokens.listByApp(appId)).map(summary);
  }

  /** Revoking twice keeps the first time; null when unknown. */
  async revoke(id: string): Promise<TokenSummary | null> {
    const row = await this.tokens.revoke(id);
    // Other processes hear of it from PostgreSQL; this one must not wait for the announcement.
    this.cache.forgetAll();
    return row ? summary(row) : null;
  }

  /** Null when unknown, revoked or expired; expiry is checked on every request. */
  async authenticate(token: string): Promise<AuthContext | null> {
    if (!token.startsWith(TOKEN_PREFIX) || token.length > 255) return null;
    const hash = hashToken(token);
    let record = this.cache.get(hash, this.clock.now());
    if (!record) {
      const epoch = this.cache.epoch;
      const row = await this.tokens.findByHash(hash);
      if (!row || row.revoked_at) return null;
      record = row;
      this.cache.keep(hash, record, epoch, this.clock.now());
    }
    const now = this.clock.now();
    if (record.expires_at && record.expires_at.getTime() <= now) return null;
    if ((!record.last_used_at || now - record.last_used_at.getTime() >= LAST_USED_RESOLUTION_MS) && !this.recording.has(record.id)) {
      // Requests in flight when the minute turns would each queue the same UPDATE (docs/decisions/0005-tokens-in-memory.md).
      const { id } = record;
      this.recording.add(id);
      record.last_used_at = new Date(now);
      // Not awaited: recording usage must not slow down or fail the request.
      this.tokens
        .touchLastUsed(id, LAST_USED_RESOLUTION_MS)
        .catch((error: Error) => this.logger.warn(`Could not record token use: ${error.message}`))
        .finally(() => this.recording.delete(id));
    }
    return { tokenId: record.id, appId: record.app_id, abilities: record.abilities };
  }
}
