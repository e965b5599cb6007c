import { readFileSync } from 'node:fs';
import type { IncomingHttpHeaders } from 'node:http';
import type { AddressInfo, Server, Socket } from 'node:net';
import { join } from 'node:path';
import type { Readable } from 'node:stream';

export const CERTS_DIR = join(__dirname, '..', '..', 'test', 'fakes', 'certs');

/** For NODE_EXTRA_CA_CERTS. */
export const TEST_CA_PATH = join(CERTS_DIR, 'ca.pem');

/** Loopback only; an address, not "localhost", so the family is fixed. */
const HOST = '127.0.0.1';

let tlsMaterial: { key: Buffer; cert: Buffer } | undefined;
let creating: { key: Buffer | string; cert: Buffer | string } | undefined;

/** The test key and certificate, read once, unless the fake being started has its own (the sandbox's). */
export function serverTlsOptions(): { key: Buffer | string; cert: Buffer | string } {
  if (creating) return creating;
  tlsMaterial ??= {
    key: readFileSync(join(CERTS_DIR, 'server-key.pem')),
    cert: readFileSync(join(CERTS_DIR, 'server.pem')),
  };
  return tlsMaterial;
}

/** Tests take an ephemeral port on 127.0.0.1; the sandbox (docs/testing.md) names them. */
export interface ListenOptions {
  port?: number;
  host?: string;
  urlHost?: string;
}

/**
 * Base of the fakes: an ephemeral loopback port, a request log, scripted answers, latency.
 * `script(key, [a, b])`: the next two valid requests to `key` answer a then b; requests the fake rejects itself use no step.
 */
export abstract class FakeTlsServer<TStep, TRecord> {
  readonly requests: TRecord[] = [];

  delayMs = 0;

  /** Connections accepted, probes included: tells a test whether clients reuse them. */
  connections = 0;

  /** A recipient's answer when no script step is left (the sandbox's behaviours); undefined: success. */
  standingAnswer?: (key: string) => TStep | undefined;

  tls?: { key: Buffer | string; cert: Buffer | string };

  private server?: Server;
  private url?: string;
  private readonly sockets = new Set<Socket>();
  private readonly scripts = new Map<string, TStep[]>();
  protected readonly urlHost: string = HOST;
  protected readonly scheme: 'https' | 'http' = 'https';

  get baseUrl(): string {
    if (!this.url) throw new Error(`${this.constructor.name} is not started`);
    return this.url;
  }

  /** Calls `listener` with every request logged from now on, keeping about `limit` of them in `requests`. */
  logTo(listener: (record: TRecord) => void, limit = Infinity): void {
    const log = this.requests;
    const push = (...records: TRecord[]): number => {
      const length = Array.prototype.push.apply(log, records);
      for (const record of records) listener(record);
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
    // stop() ends the keep-alive connections and HTTP/2 sessions clients leave open; close() alone would hang.
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

  script(key: string, steps: readonly TStep[]): void {
    this.scripts.set(this.scriptKey(key), [...steps]);
  }

  reset(): void {
    this.requests.length = 0;
    this.connections = 0;
    this.scripts.clear();
  }

  protected abstract createServer(): Server;

  protected scriptKey(key: string): string {
    return key;
  }

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

/** Reads at most `limit` bytes, draining the rest, and tells the true size (for a 413 like the real services). */
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

/** One header as a string; repeated ones are joined, which makes them fail validation. */
export function headerValue(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

export function plainHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const result: Record<string, string> = {};
  for (const name of Object.keys(headers)) {
    const text = headerValue(headers, name);
    if (text !== undefined) result[name.toLowerCase()] = text;
  }
  return result;
}

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
