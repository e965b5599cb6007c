import { Injectable, OnModuleDestroy } from '@nestjs/common';
import { createPrivateKey } from 'node:crypto';
import {
  ClientHttp2Session,
  ClientHttp2Stream,
  connect,
  constants as h2,
  IncomingHttpHeaders,
  OutgoingHttpHeaders,
} from 'node:http2';
import { SignJWT } from 'jose';
import { apnsHeaders, apnsPayload, PushContent } from '../../common/push-payloads';
import { env } from '../../config/env';
import { PROVIDER_TIMEOUT_MS, retryAfterMs, retryOutcome, transportReason } from './provider-http';
import { DeliveryOutcome, DeliveryTarget, ProviderCredentials, PushProvider } from './push-provider';

type ApnsCredentials = NonNullable<ProviderCredentials['apns']>;

const PRODUCTION_URL = 'https://api.push.apple.com';
const SANDBOX_URL = 'https://api.sandbox.push.apple.com';
/** HTTP/2 connections per (origin, signing key); requests go round-robin over them. */
const POOL_SIZE = 4;
/**
 * nghttp2 per-session memory cap, in MB. At the 10 MB default, a thousand in-flight ~4 KiB
 * streams make nghttp2 reset streams with ENHANCE_YOUR_CALM.
 */
const SESSION_MEMORY_MB = 64;
/** A connection quiet this long is closed rather than left for a NAT to drop silently. */
const IDLE_SESSION_MS = 5 * 60_000;
/** After a request timed out, a connection that does not answer a PING this fast is dropped. */
const PING_TIMEOUT_MS = 5_000;
/**
 * Apple rejects provider tokens older than an hour and answers TooManyProviderTokenUpdates when
 * one is replaced more often than every 20 minutes: 40 minutes sits safely between the two.
 */
const PROVIDER_TOKEN_REFRESH_MS = 40 * 60_000;
/** 400 reasons that mean this device token will never work for this app. */
const INVALID_TOKEN_REASONS = new Set(['BadDeviceToken', 'DeviceTokenNotForTopic']);

interface ProviderToken {
  pem: string;
  issuedAt: number;
  jwt: Promise<string>;
}

/**
 * Provider tokens, per process rather than per provider instance: Apple's update limit applies to
 * the signing key, however many clients use it. Promises are stored so a burst of sends that finds
 * no valid token signs exactly one.
 */
const providerTokens = new Map<string, ProviderToken>();

const tokenKey = (apns: ApnsCredentials) => `${apns.teamId}.${apns.keyId}`;

function issueProviderToken(apns: ApnsCredentials): ProviderToken {
  const key = tokenKey(apns);
  const issuedAt = Date.now();
  const jwt = new SignJWT({})
    .setProtectedHeader({ alg: 'ES256', kid: apns.keyId })
    .setIssuer(apns.teamId)
    .setIssuedAt(Math.floor(issuedAt / 1000))
    .sign(createPrivateKey(apns.privateKey));
  const entry: ProviderToken = { pem: apns.privateKey, issuedAt, jwt };
  providerTokens.set(key, entry);
  // A key that cannot sign must not stay cached as a rejected promise.
  jwt.catch(() => {
    if (providerTokens.get(key) === entry) providerTokens.delete(key);
  });
  return entry;
}

function providerToken(apns: ApnsCredentials): Promise<string> {
  const entry = providerTokens.get(tokenKey(apns));
  // A changed .p8 under the same key id (an operator fixing a mistake) gets a new token at once.
  if (entry && entry.pem === apns.privateKey && Date.now() - entry.issuedAt < PROVIDER_TOKEN_REFRESH_MS) return entry.jwt;
  return issueProviderToken(apns).jwt;
}

/**
 * After APNs said ExpiredProviderToken for `staleJwt`: a new token, unless a concurrent request
 * already replaced it (hundreds of in-flight streams get the same answer; one refresh is enough).
 */
async function refreshProviderToken(apns: ApnsCredentials, staleJwt: string): Promise<string> {
  const key = tokenKey(apns);
  const entry = providerTokens.get(key);
  const current = entry ? await entry.jwt.catch(() => undefined) : undefined;
  const latest = providerTokens.get(key);
  if (latest && latest !== entry) return latest.jwt;
  if (entry && current !== undefined && current !== staleJwt) return entry.jwt;
  return issueProviderToken(apns).jwt;
}

/** What one POST produced: an HTTP answer, or the transport failure that prevented one. */
type ApnsAnswer = { status: number; headers: IncomingHttpHeaders; body: string } | { failure: string };

interface PooledSession {
  session: ClientHttp2Session;
  /** Streams we have open on it. */
  active: number;
  /** True once the server's SETTINGS arrived; until then we assume a single stream. */
  ready: boolean;
  probing: boolean;
}

interface Waiter {
  resolve: (pooled: PooledSession) => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
}

class ApnsTransportError extends Error {}

/**
 * A few long-lived HTTP/2 connections to one APNs origin for one signing key. Apple asks for
 * connections to be kept open and reused (opening one per request is treated as abuse), and counts
 * provider-token changes per connection, hence one pool per key rather than per origin only.
 *
 * Streams are counted per connection and never exceed the peer's SETTINGS_MAX_CONCURRENT_STREAMS
 * (APNs allows one stream until the first authenticated request, then raises it); requests beyond
 * every connection's limit wait here, in order, within the request deadline.
 */
class SessionPool {
  private readonly slots: (PooledSession | undefined)[] = new Array<PooledSession | undefined>(POOL_SIZE).fill(undefined);
  private readonly waiters: Waiter[] = [];
  private cursor = 0;
  private closed = false;

  constructor(readonly origin: string) {}

  /** Sessions currently open (for tests and diagnostics). */
  get size(): number {
    return this.slots.filter((slot) => slot !== undefined).length;
  }

  acquire(timeoutMs: number): Promise<PooledSession> {
    if (this.closed) return Promise.reject(new ApnsTransportError('ProviderClosed'));
    const pooled = this.take();
    if (pooled) return Promise.resolve(pooled);
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        resolve,
        reject,
        timer: setTimeout(() => {
          this.waiters.splice(this.waiters.indexOf(waiter), 1);
          reject(new ApnsTransportError('Timeout'));
        }, timeoutMs),
      };
      this.waiters.push(waiter);
    });
  }

  release(pooled: PooledSession): void {
    pooled.active--;
    this.pump();
  }

  /** After a request timed out: drop the connection if it no longer answers at all. */
  probe(pooled: PooledSession): void {
    const { session } = pooled;
    if (pooled.probing || session.destroyed) return;
    pooled.probing = true;
    const timer = setTimeout(() => session.destroy(new ApnsTransportError('APNs connection stopped answering')), PING_TIMEOUT_MS);
    timer.unref();
    const sent = session.ping((error) => {
      clearTimeout(timer);
      pooled.probing = false;
      if (error && !session.destroyed) session.destroy();
    });
    if (!sent) {
      clearTimeout(timer);
      pooled.probing = false;
    }
  }

  close(): void {
    this.closed = true;
    for (const waiter of this.waiters.splice(0)) {
      clearTimeout(waiter.timer);
      waiter.reject(new ApnsTransportError('ProviderClosed'));
    }
    for (const [index, pooled] of this.slots.entries()) {
      this.slots[index] = undefined;
      pooled?.session.destroy();
    }
  }

  /** Round-robin over the slots, opening a connection in an empty one; undefined when all are full. */
  private take(): PooledSession | undefined {
    for (let i = 0; i < this.slots.length; i++) {
      const index = (this.cursor + i) % this.slots.length;
      const pooled = this.slots[index] ?? this.open(index);
      const limit = pooled.ready ? pooled.session.remoteSettings.maxConcurrentStreams ?? 1 : 1;
      if (pooled.active < limit && !pooled.session.closed && !pooled.session.destroyed) {
        this.cursor = index + 1;
        pooled.active++;
        return pooled;
      }
    }
    return undefined;
  }

  private pump(): void {
    while (this.waiters.length > 0 && !this.closed) {
      const pooled = this.take();
      if (!pooled) return;
      const waiter = this.waiters.shift() as Waiter;
      clearTimeout(waiter.timer);
      waiter.resolve(pooled);
    }
  }

  private open(index: number): PooledSession {
    const session = connect(this.origin, { maxSessionMemory: SESSION_MEMORY_MB });
    // Idle connections must not keep a worker (or a test run) from exiting.
    session.unref();
    const pooled: PooledSession = { session, active: 0, ready: false, probing: false };
    this.slots[index] = pooled;

    const drop = () => {
      if (this.slots[index] !== pooled) return;
      this.slots[index] = undefined;
      // Waiters move on to a fresh connection.
      this.pump();
    };
    session.on('remoteSettings', () => {
      pooled.ready = true;
      this.pump();
    });
    session.on('error', (error: Error) => {
      const healthy = this.slots.some((slot) => slot !== pooled && slot?.ready);
      if (!pooled.ready && !healthy && this.slots[index] === pooled) {
        // Could not even connect, and no other connection works: the origin is unreachable. Fail
        // fast rather than let every waiter try a new connection in turn; callers retry later.
        this.slots[index] = undefined;
        for (const waiter of this.waiters.splice(0)) {
          clearTimeout(waiter.timer);
          waiter.reject(error);
        }
      }
      drop();
    });
    // GOAWAY: in-flight streams finish (or fail and are retried); new ones go to a new connection.
    session.on('goaway', drop);
    session.on('close', drop);
    session.setTimeout(IDLE_SESSION_MS, () => {
      if (pooled.active === 0) session.close();
    });
    return pooled;
  }
}

/**
 * APNs provider API over HTTP/2 with token (.p8) authentication (contract section 6). No client
 * library: node:http2 for the transport and jose for the ES256 provider token.
 */
@Injectable()
export class ApnsProvider implements PushProvider, OnModuleDestroy {
  readonly platform = 'ios' as const;
  /** Per-request deadline; lowered by tests. */
  timeoutMs = PROVIDER_TIMEOUT_MS;

  private readonly pools = new Map<string, SessionPool>();

  configured(credentials: ProviderCredentials): boolean {
    return credentials.apns !== null;
  }

  async send(credentials: ProviderCredentials, content: PushContent, target: DeliveryTarget): Promise<DeliveryOutcome> {
    const apns = credentials.apns;
    if (!apns) return { kind: 'failed', reason: 'ApnsNotConfigured' };
    if (!target.pushToken) return { kind: 'failed', reason: 'MissingDeviceToken' };

    const base = new URL(env().APNS_URL ?? (apns.production ? PRODUCTION_URL : SANDBOX_URL));
    const pool = this.pool(base.origin, apns);
    const path = `${base.pathname.replace(/\/+$/, '')}/3/device/${encodeURIComponent(target.pushToken)}`;
    const headers: OutgoingHttpHeaders = { ...apnsHeaders(content), 'apns-topic': apns.topic };
    const body = JSON.stringify(apnsPayload(content));

    let jwt: string;
    try {
      jwt = await providerToken(apns);
    } catch {
      // Validated when stored, so only a corrupted key gets here; retrying cannot help.
      return { kind: 'failed', reason: 'InvalidProviderKey' };
    }
    let answer = await this.post(pool, path, { ...headers, authorization: `bearer ${jwt}` }, body);
    if (!('failure' in answer) && answer.status === 403 && reasonOf(answer.body) === 'ExpiredProviderToken') {
      // Our clock or cache disagreed with Apple's: one fresh token, sent at once.
      jwt = await refreshProviderToken(apns, jwt);
      answer = await this.post(pool, path, { ...headers, authorization: `bearer ${jwt}` }, body);
    }
    return outcomeOf(answer);
  }

  /** Open HTTP/2 connections, over all pools (for tests and diagnostics). */
  get openSessions(): number {
    return [...this.pools.values()].reduce((sum, pool) => sum + pool.size, 0);
  }

  /** Destroys every connection; later sends open new ones. */
  close(): void {
    for (const pool of this.pools.values()) pool.close();
    this.pools.clear();
  }

  onModuleDestroy(): void {
    this.close();
  }

  private pool(origin: string, apns: ApnsCredentials): SessionPool {
    const key = `${origin} ${tokenKey(apns)}`;
    let pool = this.pools.get(key);
    if (!pool) {
      pool = new SessionPool(origin);
      this.pools.set(key, pool);
    }
    return pool;
  }

  private async post(pool: SessionPool, path: string, headers: OutgoingHttpHeaders, body: string): Promise<ApnsAnswer> {
    let pooled: PooledSession;
    try {
      pooled = await pool.acquire(this.timeoutMs);
    } catch (error) {
      return { failure: transportReason(error) };
    }
    return new Promise<ApnsAnswer>((resolve) => {
      let settled = false;
      const finish = (answer: ApnsAnswer) => {
        if (settled) return;
        settled = true;
        pool.release(pooled);
        resolve(answer);
      };

      let stream: ClientHttp2Stream;
      try {
        stream = pooled.session.request({ ...headers, [h2.HTTP2_HEADER_METHOD]: 'POST', [h2.HTTP2_HEADER_PATH]: path });
      } catch (error) {
        // The connection closed (GOAWAY) between acquire and request.
        finish({ failure: transportReason(error) });
        return;
      }
      let status = 0;
      let responseHeaders: IncomingHttpHeaders = {};
      const chunks: Buffer[] = [];
      stream.setTimeout(this.timeoutMs, () => {
        finish({ failure: 'Timeout' });
        stream.close(h2.NGHTTP2_CANCEL);
        pool.probe(pooled);
      });
      stream.on('response', (received) => {
        status = Number(received[h2.HTTP2_HEADER_STATUS]);
        responseHeaders = received;
      });
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        finish(status > 0 ? { status, headers: responseHeaders, body: Buffer.concat(chunks).toString('utf8') } : { failure: 'NoResponse' });
      });
      stream.on('error', (error: Error) => finish({ failure: transportReason(error) }));
      // Closed without a response or error event (e.g. RST_STREAM from the server).
      stream.on('close', () => finish({ failure: stream.rstCode ? `StreamReset:${stream.rstCode}` : 'NoResponse' }));
      stream.end(body);
    });
  }
}

function reasonOf(body: string): string | undefined {
  try {
    const parsed = JSON.parse(body) as { reason?: unknown };
    return typeof parsed.reason === 'string' ? parsed.reason : undefined;
  } catch {
    return undefined;
  }
}

/** APNs status + reason -> outcome (Apple's "Handling notification responses from APNs"). */
function outcomeOf(answer: ApnsAnswer): DeliveryOutcome {
  if ('failure' in answer) return retryOutcome(answer.failure);
  const { status } = answer;
  if (status === 200) return { kind: 'accepted' };
  const reason = reasonOf(answer.body) ?? `HTTP ${status}`;
  if (status === 410) return { kind: 'invalid', reason };
  if (status === 400 && INVALID_TOKEN_REASONS.has(reason)) return { kind: 'invalid', reason };
  if (status === 429 || status >= 500) return retryOutcome(reason, retryAfterMs(answer.headers['retry-after']));
  // A fresh token still called expired: a clock problem, worth another try later.
  if (status === 403 && reason === 'ExpiredProviderToken') return retryOutcome(reason);
  return { kind: 'failed', reason };
}
