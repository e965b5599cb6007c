import {
  ClientHttp2Session,
  ClientHttp2Stream,
  connect,
  constants as h2,
  IncomingHttpHeaders,
  OutgoingHttpHeaders,
  SecureClientSessionOptions,
} from 'node:http2';
import { Http2Answer, transportReason } from './provider-http';

export type { Http2Answer } from './provider-http';

/** Long-lived HTTP/2 connections to one origin (APNs, FCM): a big send costs a few TLS handshakes, no socket per request. */

/** HTTP/2 connections per pool; requests go round-robin over them. */
const DEFAULT_POOL_SIZE = 4;
/** nghttp2's per-session memory cap, MB: at its 10 MB default, a thousand in-flight streams get ENHANCE_YOUR_CALM. */
const SESSION_MEMORY_MB = 64;
/** A connection quiet this long is closed rather than left for a NAT to drop silently. */
const IDLE_SESSION_MS = 5 * 60_000;
/** After a request timed out, a connection that does not answer a PING this fast is dropped. */
const PING_TIMEOUT_MS = 5_000;

const RAW_PSEUDO_HEADERS = 8;

interface PooledSession {
  session: ClientHttp2Session;
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

class Http2TransportError extends Error {}

/** At most the peer's SETTINGS_MAX_CONCURRENT_STREAMS per connection (APNs: one until authenticated); the rest wait in order. */
export class Http2SessionPool {
  private readonly slots: (PooledSession | undefined)[];
  private readonly waiters: Waiter[] = [];
  private cursor = 0;
  private closed = false;
  /** `:scheme` and `:authority` of postRaw's requests (node:http2 fills them in for the others). */
  private readonly scheme: string;
  private readonly authority: string;

  constructor(
    readonly origin: string,
    size = DEFAULT_POOL_SIZE,
    /** Extra options for http2.connect (Web Push passes its checking `lookup`). */
    private readonly connectOptions: SecureClientSessionOptions = {},
  ) {
    this.slots = new Array<PooledSession | undefined>(size).fill(undefined);
    const url = new URL(origin);
    this.scheme = url.protocol.slice(0, -1);
    this.authority = url.host;
  }

  get size(): number {
    return this.slots.filter((slot) => slot !== undefined).length;
  }

  /** One POST: the answer or the transport failure; `timeoutMs` bounds the wait for a stream and, apart, the exchange. */
  post(path: string, headers: OutgoingHttpHeaders, body: string | Buffer, timeoutMs: number): Promise<Http2Answer> {
    // POST unless the headers name another method (APNs channel management's GET and DELETE).
    return this.request({ [h2.HTTP2_HEADER_METHOD]: 'POST', ...headers, [h2.HTTP2_HEADER_PATH]: path }, body, timeoutMs);
  }

  /** A POST with flat headers (`[name, value, ...]`, shared by a send's requests): no header object per request (APNs). */
  postRaw(path: string, fields: readonly string[], authorization: string, body: string | Buffer, timeoutMs: number): Promise<Http2Answer> {
    const headers = new Array<string>(RAW_PSEUDO_HEADERS + fields.length + 2);
    headers[0] = h2.HTTP2_HEADER_METHOD;
    headers[1] = 'POST';
    headers[2] = h2.HTTP2_HEADER_SCHEME;
    headers[3] = this.scheme;
    headers[4] = h2.HTTP2_HEADER_AUTHORITY;
    headers[5] = this.authority;
    headers[6] = h2.HTTP2_HEADER_PATH;
    headers[7] = path;
    for (let i = 0; i < fields.length; i++) headers[RAW_PSEUDO_HEADERS + i] = fields[i];
    headers[headers.length - 2] = h2.HTTP2_HEADER_AUTHORIZATION;
    headers[headers.length - 1] = authorization;
    return this.request(headers, body, timeoutMs);
  }

  private async request(headers: OutgoingHttpHeaders | string[], body: string | Buffer, timeoutMs: number): Promise<Http2Answer> {
    let taken = this.closed ? undefined : this.take();
    if (!taken) {
      try {
        taken = await this.waitForStream(timeoutMs);
      } catch (error) {
        return { failure: transportReason(error) };
      }
    }
    const pooled = taken;
    return new Promise<Http2Answer>((resolve) => {
      let settled = false;
      const finish = (answer: Http2Answer) => {
        if (settled) return;
        settled = true;
        this.release(pooled);
        resolve(answer);
      };

      let stream: ClientHttp2Stream;
      try {
        stream = pooled.session.request(headers);
      } catch (error) {
        // The connection closed (GOAWAY) between taking the stream and the request.
        finish({ failure: transportReason(error) });
        return;
      }
      let status = 0;
      let responseHeaders: IncomingHttpHeaders = {};
      let chunks: Buffer[] | undefined;
      stream.setTimeout(timeoutMs, () => {
        finish({ failure: 'Timeout' });
        stream.close(h2.NGHTTP2_CANCEL);
        this.probe(pooled);
      });
      stream.on('response', (received) => {
        status = Number(received[h2.HTTP2_HEADER_STATUS]);
        responseHeaders = received;
      });
      stream.on('data', (chunk: Buffer) => (chunks ??= []).push(chunk));
      stream.on('end', () => {
        const text = chunks === undefined ? '' : Buffer.concat(chunks).toString('utf8');
        finish(status > 0 ? { status, headers: responseHeaders, body: text } : { failure: 'NoResponse' });
      });
      stream.on('error', (error: Error) => finish({ failure: transportReason(error) }));
      // Closed without a response or error event (e.g. RST_STREAM from the server).
      stream.on('close', () => finish({ failure: stream.rstCode ? `StreamReset:${stream.rstCode}` : 'NoResponse' }));
      // Node ends a GET's or DELETE's stream itself (no body): only a writable one takes the body.
      if (stream.writable) stream.end(body);
    });
  }

  /** A stream that frees up within `timeoutMs`, for a request that found every one taken. */
  private waitForStream(timeoutMs: number): Promise<PooledSession> {
    if (this.closed) return Promise.reject(new Http2TransportError('ProviderClosed'));
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        resolve,
        reject,
        timer: setTimeout(() => {
          this.waiters.splice(this.waiters.indexOf(waiter), 1);
          reject(new Http2TransportError('Timeout'));
        }, timeoutMs),
      };
      this.waiters.push(waiter);
    });
  }

  private release(pooled: PooledSession): void {
    pooled.active--;
    this.pump();
  }

  /** After a request timed out: drop the connection if it no longer answers at all. */
  private probe(pooled: PooledSession): void {
    const { session } = pooled;
    if (pooled.probing || session.destroyed) return;
    pooled.probing = true;
    const timer = setTimeout(() => session.destroy(new Http2TransportError('The provider connection stopped answering')), PING_TIMEOUT_MS);
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
      waiter.reject(new Http2TransportError('ProviderClosed'));
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
      const limit = pooled.ready ? (pooled.session.remoteSettings.maxConcurrentStreams ?? 1) : 1;
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
    const session = connect(this.origin, { ...this.connectOptions, maxSessionMemory: SESSION_MEMORY_MB });
    // Idle connections must not keep a worker (or a test run) from exiting.
    session.unref();
    const pooled: PooledSession = { session, active: 0, ready: false, probing: false };
    this.slots[index] = pooled;

    const drop = () => {
      if (this.slots[index] !== pooled) return;
      this.slots[index] = undefined;
      this.pump();
    };
    session.on('remoteSettings', () => {
      pooled.ready = true;
      this.pump();
    });
    session.on('error', (error: Error) => {
      const healthy = this.slots.some((slot) => slot !== pooled && slot?.ready);
      if (!pooled.ready && !healthy && this.slots[index] === pooled) {
        // Could not connect and no other connection works: fail every waiter now; callers retry later.
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

/** One Http2SessionPool per key (origin, or origin and signing key for APNs), made on first use. */
export class Http2Pools {
  private readonly pools = new Map<string, Http2SessionPool>();

  constructor(private readonly connectOptions: SecureClientSessionOptions = {}) {}

  get(key: string, origin: string): Http2SessionPool {
    let pool = this.pools.get(key);
    if (!pool) {
      pool = new Http2SessionPool(origin, DEFAULT_POOL_SIZE, this.connectOptions);
      this.pools.set(key, pool);
    }
    return pool;
  }

  get openSessions(): number {
    return [...this.pools.values()].reduce((sum, pool) => sum + pool.size, 0);
  }

  /** Destroys every connection; later sends open new ones. */
  close(): void {
    for (const pool of this.pools.values()) pool.close();
    this.pools.clear();
  }
}
