import { Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { EnvironmentVariables } from '../config/env';
import { TokenChangesListener, TokenChangesRepository } from './token-changes.repository';
import type { TokenCheckRow } from './tokens.repository';

export type TokenRecord = Omit<TokenCheckRow, 'revoked_at'>;

const MAX_ENTRIES = 10_000;
/** Backstop for a listener that dies silently (a NAT drop): a kept token is read again after this long. */
const MAX_AGE_MS = 60_000;
const RECONNECT_DELAY_MS = 1_000;

/**
 * Valid tokens kept while this process listens to token changes, each change dropping them all
 * (docs/decisions/0005-tokens-in-memory.md, docs/operations.md "Tokens in memory"); unknown and revoked tokens are never kept.
 */
@Injectable()
export class TokenCache implements OnModuleDestroy {
  private readonly logger = new Logger(TokenCache.name);
  /** The record itself: authenticate() updates its last_used_at in place. */
  private readonly entries = new Map<string, { record: TokenRecord; keptAt: number }>();
  private listener?: TokenChangesListener;
  private live = false;
  private connecting = false;
  private closed = false;
  private retryTimer?: NodeJS.Timeout;
  private attempt = 0;
  /** Moves on every announcement and listener change: a read from an earlier epoch is not kept. */
  private epochCounter = 0;

  constructor(
    private readonly changes: TokenChangesRepository,
    private readonly config: EnvironmentVariables,
  ) {}

  get epoch(): number {
    return this.epochCounter;
  }

  get listening(): boolean {
    return this.live;
  }

  get(hash: string, now = Date.now()): TokenRecord | undefined {
    if (!this.config.TOKEN_CACHE) return undefined;
    if (!this.live) {
      this.listen();
      return undefined;
    }
    const entry = this.entries.get(hash);
    if (entry && now - entry.keptAt > MAX_AGE_MS) {
      this.entries.delete(hash);
      return undefined;
    }
    return entry?.record;
  }

  keep(hash: string, record: TokenRecord, epoch: number, now = Date.now()): void {
    if (!this.live || epoch !== this.epochCounter) return;
    if (this.entries.size >= MAX_ENTRIES && !this.entries.has(hash)) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(hash, { record, keptAt: now });
  }

  async onModuleDestroy(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retryTimer);
    this.attempt++;
    this.live = false;
    this.forgetAll();
    const listener = this.listener;
    this.listener = undefined;
    await listener?.close();
  }

  private listen(): void {
    if (this.connecting || this.closed || this.retryTimer) return;
    this.connecting = true;
    const attempt = ++this.attempt;
    this.changes
      .listen({
        changed: () => {
          if (attempt === this.attempt) this.forgetAll();
        },
        lost: (error) => this.lost(attempt, error),
      })
      .then((listener) => {
        if (attempt !== this.attempt) return void listener.close();
        this.connecting = false;
        this.listener = listener;
        this.forgetAll();
        this.live = true;
      })
      .catch((error: Error) => this.lost(attempt, error));
  }

  private lost(attempt: number, error?: Error): void {
    if (attempt !== this.attempt) return;
    this.attempt++;
    this.connecting = false;
    this.live = false;
    this.forgetAll();
    void this.listener?.close();
    this.listener = undefined;
    if (this.closed) return;
    this.logger.warn(
      `Not listening to token changes (${error?.message ?? 'connection closed'}); every request reads its token from the database until listening again`,
    );
    this.retryTimer = setTimeout(() => (this.retryTimer = undefined), RECONNECT_DELAY_MS);
    this.retryTimer.unref();
  }

  forgetAll(): void {
    this.epochCounter++;
    this.entries.clear();
  }
}
