import { readFileSync } from 'node:fs';
import type { IncomingHttpHeaders } from 'node:http';
import type { AddressInfo, Server, Socket } from 'node:net';
import { join } from 'node:path';
import type { Readable } from 'node:stream';

/** Directory of the test-only CA and loopback server certificate. */
export const CERTS_DIR = join(__dirname, '..', '..', 'test', 'fakes', 'certs');

/** Path to hand to NODE_EXTRA_CA_CERTS (e.g. when spawning the service). */
export const TEST_CA_PATH = join(CERTS_DIR, 'ca.pem');

/**
 * The fakes only ever bind loopback. 127.0.0.1 (not "localhost") keeps the
 * address family deterministic; the certificate covers both anyway.
 */
const HOST = '127.0.0.1';

let tlsMaterial: { key: Buffer; cert: Buffer } | undefined;
/** The certificate of the fake whose server is being created, when it has its own (the sandbox's). */
let creating: { key: Buffer | string; cert: Buffer | string } | undefined;

/**
 * Key and certificate every fake serves: the test ones, read once per process, unless the fake
 * being started has its own (`tls`; the sandbox's, where no test certificate is installed).
 */
export function serverTlsOptions(): { key: Buffer | string; cert: Buffer | string } {
  if (creating) return creating;
  tlsMaterial ??= {
    key: readFileSync(join(CERTS_DIR, 'server-key.pem')),
    cert: readFileSync(join(CERTS_DIR, 'server.pem')),
  };
  return tlsMaterial;
}

/**
 * Where a fake listens and what its URLs say. Tests take the defaults (an ephemeral port on
 * 127.0.0.1); the sandbox (`pns sandbox`, docs/testing.md) names them.
 */
export interface ListenOptions {
  port?: number;
  /** The address to bind: loopback unless the operator says otherwise. */
  host?: string;
  /** Host name in baseUrl (and so in the certificate), when not the fake's own default. */
  urlHost?: string;
}

/**
 * Base of the three fakes: lifecycle on an ephemeral loopback port, a log of
 * requests, per-recipient scripted answers and artificial latency.
 *
 * Scripts model a provider that misbehaves for one recipient a few times and
 * then recovers: `script(key, [a, b])` makes the next two *valid* requests to
 * `key` answer `a` then `b`; later ones get the normal success answer.
 * Requests the fake rejects on its own (bad auth, bad payload...) do not use
 * up a step, so a broken client cannot be mistaken for a scripted failure.
 */
export abstract class FakeTlsServer<TStep, TRecord> {
  /** Every request that reached the handler, in arrival order. */
  readonly requests: TRecord[] = [];

  /** Latency added before every response, to exercise timeouts and concurrency. */
  delayMs = 0;

  /** Connections accepted (TLS or plain), probes included: tells a test whether clients reuse them. */
  connections = 0;

  /**
   * A standing answer for a recipient, asked when no script step is left (the sandbox's
   * behaviours, `PUT /behaviours/{token}`); undefined means the normal success answer.
   */
  standingAnswer?: (key: string) => TStep | undefined;

  /** Key and certificate to serve instead of the test ones (the sandbox's own). */
  tls?: { key: Buffer | string; cert: Buffer | string };

  private server?: Server;
  private url?: string;
  private readonly sockets = new Set<Socket>();
  private readonly scripts = new Map<string, TStep[]>();
  /** Host name in baseUrl; the socket is bound to 127.0.0.1 whatever it is. */
  protected readonly urlHost: string = HOST;
  /** `http` for a fake serving without TLS. */
  protected readonly scheme: 'https' | 'http' = 'https';

  /** Base URL (https://127.0.0.1:PORT, or the urlHost) of a started fake. */
  get baseUrl(): string {
    if (!this.url) throw new Error(`${this.constructor.name} is not started`);
    return this.url;
  }

  /**
   * Calls `listener` with every request logged from now on (the sandbox's inbox), and keeps at
   * most about `limit` of them in `requests`, so a long-running sandbox stays small. The log stays
   * a plain array, as tests compare it: only its own (non-enumerable) `push` changes.
   */
  logTo(listener: (record: TRecord) => void, limit = Infinity): void {
    const log = this.requests;
    const push = (...records: TRecord[]): number => {
      const length = Array.prototype.push.apply(log, records);
      for (const record of records) listener(record);
      // Trimmed in steps of a tenth, so that keeping the limit costs no copy per request.
      if (length > limit) log.splice(0, length - limit + Math.ceil(limit / 10));
      return log.length;
    };
    Object.defineProperty(log, 'push', { value: push, enumerable: false, configurable: true, writable: true });
  }

  async start(options: ListenOptions = {}): Promise<string> {
    if (this.url) return this.url;
    // createServer() is synchronous: serverTlsOptions() answers with this fake's own certificate meanwhile.
    creating = this.tls;
    let server: Server;
    try {
      server = this.createServer();
    } finally {
      creating = undefined;
    }
    // Tracking raw sockets lets stop() end keep-alive connections and HTTP/2
    // sessions that clients under test leave open; close() alone would hang.
    server.on('connection', (socket: Socket) => {
      this.connections++;
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port ?? 0, options.host ?? HOST, () => {
        server.off('error', reject);
        resolve();
      });
    });
    this.server = server;
    this.url = `${this.scheme}://${options.urlHost ?? this.urlHost}:${(server.address() as AddressInfo).port}`;
    return this.url;
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    this.url = undefined;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
    await closed;
  }

  /** Replaces the queue of answers for one recipient (token or subscription id). */
  script(key: string, steps: readonly TStep[]): void {
    this.scripts.set(this.scriptKey(key), [...steps]);
  }

  /** Clears recorded requests and scripts; subclasses add their own counters. */
  reset(): void {
    this.requests.length = 0;
    this.connections = 0;
    this.scripts.clear();
  }

  protected abstract createServer(): Server;

  /** Lets a fake accept several spellings of the same recipient (id vs URL). */
  protected scriptKey(key: string): string {
    return key;
  }

  /** Takes the next scripted answer for `key`, if any is left. */
  protected nextStep(key: string): TStep | undefined {
    const steps = this.scripts.get(key);
    const step = steps?.shift();
    if (steps?.length === 0) this.scripts.delete(key);
    return step ?? this.standingAnswer?.(key);
  }

  protected async applyDelay(): Promise<void> {
    if (this.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, this.delayMs));
  }
}

/**
 * Reads a request body, keeping at most `limit` bytes: an oversized body is
 * drained rather than buffered, yet the caller still learns its true size and
 * can answer 413 like the real services.
 */
export async function readBody(stream: Readable, limit: number): Promise<{ body: Buffer; size: number }> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size <= limit) chunks.push(buffer);
  }
  return { body: Buffer.concat(chunks), size };
}

/** One header as a single string; repeated headers are joined, which makes them fail validation. */
export function headerValue(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

/** Plain copy of request headers with one string per name (HTTP/2 pseudo-headers included). */
export function plainHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const result: Record<string, string> = {};
  for (const name of Object.keys(headers)) {
    const text = headerValue(headers, name);
    if (text !== undefined) result[name.toLowerCase()] = text;
  }
  return result;
}

/** Parses JSON, returning undefined instead of throwing: bad JSON is an expected input here. */
export function tryParseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
