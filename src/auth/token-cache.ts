import { Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { Client, type Pool } from 'pg';
import { DataSource } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';
import { env } from '../config/env';

/** The columns authentication needs, as read from api_tokens. */
export interface TokenRecord {
  id: string;
  app_id: string;
  abilities: string[];
  expires_at: Date | null;
  last_used_at: Date | null;
}

/** The channel the api_tokens triggers notify (migration TokenChanges). */
const CHANNEL = 'api_tokens_changed';
const MAX_ENTRIES = 10_000;
/**
 * Backstop for a listener connection that dies silently (a NAT dropping it without a reset): even
 * then, a cached token is read again after this long.
 */
const MAX_AGE_MS = 60_000;
/** Wait after losing the listener before the next request tries to listen again. */
const RECONNECT_DELAY_MS = 1_000;
const KEEPALIVE_DELAY_MS = 30_000;

/**
 * Valid tokens kept in memory, so a request costs one database round trip instead of two; kept
 * only while this process LISTENs to `api_tokens_changed`. Any change to a token (revocation,
 * expiry, abilities, deletion, also by hand in SQL) notifies every listening process, which then
 * drops all it holds, so a revocation takes effect as soon as PostgreSQL delivers the notification.
 * Without a working listener nothing is cached and every request reads the database.
 *
 * Unknown and revoked tokens are never cached: a token created later must work at once, and random
 * tokens must not fill the memory. The listener connects on the first lookup, so processes that
 * never authenticate (worker, CLI) never open it.
 */
@Injectable()
export class TokenCache implements OnModuleDestroy {
  private readonly logger = new Logger(TokenCache.name);
  private readonly entries = new Map<string, TokenRecord & { cachedAt: number }>();
  private client?: Client;
  private live = false;
  private closed = false;
  private retryTimer?: NodeJS.Timeout;
  /**
   * Moves on every notification, on going live and on losing the listener. A read that began in
   * an earlier epoch may predate a change nobody told us about, so it is not cached.
   */
  private epochCounter = 0;

  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /** The epoch to hand back to set() for a database read that starts now. */
  get epoch(): number {
    return this.epochCounter;
  }

  /** True while changes are being listened to (for tests and diagnostics). */
  get listening(): boolean {
    return this.live;
  }

  get(hash: string): TokenRecord | undefined {
    if (!env().TOKEN_CACHE) return undefined;
    if (!this.live) {
      this.listen();
      return undefined;
    }
    const entry = this.entries.get(hash);
    if (entry && Date.now() - entry.cachedAt > MAX_AGE_MS) {
      this.entries.delete(hash);
      return undefined;
    }
    return entry;
  }

  /** Keeps a valid token read in `epoch`, unless something changed since that read began. */
  set(hash: string, record: TokenRecord, epoch: number): void {
    if (!this.live || epoch !== this.epochCounter) return;
    if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(hash, { ...record, cachedAt: Date.now() });
  }

  onModuleDestroy(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retryTimer);
    this.forget();
    const client = this.client;
    this.client = undefined;
    this.live = false;
    return client ? client.end().catch(() => undefined) : Promise.resolve();
  }

  private listen(): void {
    if (this.client || this.closed || this.retryTimer) return;
    // The same server and credentials as the pool of `db`, on a connection of its own.
    const client = new Client({
      ...((this.db.driver as PostgresDriver).master as Pool).options,
      application_name: `push-${env().APP_MODE}-tokens`,
      keepAlive: true,
      keepAliveInitialDelayMillis: KEEPALIVE_DELAY_MS,
    });
    this.client = client;
    client.on('notification', () => this.forget());
    client.on('error', (error: Error) => this.lost(client, error));
    client.on('end', () => this.lost(client));
    client
      .connect()
      .then(() => client.query(`LISTEN ${CHANNEL}`))
      .then(() => {
        if (this.client !== client) return;
        this.forget();
        this.live = true;
      })
      .catch((error: Error) => this.lost(client, error));
  }

  private lost(client: Client, error?: Error): void {
    if (this.client !== client) return;
    this.client = undefined;
    this.live = false;
    this.forget();
    client.end().catch(() => undefined);
    if (this.closed) return;
    this.logger.warn(`Not listening to token changes (${error?.message ?? 'connection closed'}); every request reads its token from the database until listening again`);
    this.retryTimer = setTimeout(() => (this.retryTimer = undefined), RECONNECT_DELAY_MS);
    this.retryTimer.unref();
  }

  private forget(): void {
    this.epochCounter++;
    this.entries.clear();
  }
}
