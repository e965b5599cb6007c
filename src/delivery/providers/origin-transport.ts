import { Agent as HttpAgent, IncomingHttpHeaders, OutgoingHttpHeaders, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { isIP, LookupFunction } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { Http2Answer, Http2Pools } from './http2-session-pool';
import { transportReason } from './provider-http';

export type Protocol = 'h2' | 'http/1.1';

const ORIGIN_CACHE_SIZE = 1000;
const MAX_SOCKETS = 256;

export interface Destination {
  url: URL;
  origin: string;
  path: string;
}

export const destinationOf = (url: URL): Destination => ({ url, origin: url.origin, path: `${url.pathname}${url.search}` });

export interface OriginTransportOptions {
  /** Resolves every connection: Web Push passes the one that refuses private addresses. */
  lookup?: LookupFunction;
}

/** Requests in whatever each origin negotiated (docs/decisions/0020-provider-http2-negotiated-per-origin.md); APNs uses Http2Pools directly. */
export class OriginTransport {
  /** Keep-alive HTTP/1.1 agents, for a library that makes its own requests (web-push). */
  readonly httpsAgent: HttpsAgent;
  private readonly httpAgent: HttpAgent;
  private readonly sessions: Http2Pools;
  /** What each origin negotiated, asked once per process (again after a failed probe). */
  private readonly protocols = new Map<string, Promise<Protocol | undefined>>();
  private readonly known = new Map<string, Protocol>();

  constructor(private readonly options: OriginTransportOptions = {}) {
    const lookup = options.lookup ? { lookup: options.lookup } : {};
    this.httpsAgent = new HttpsAgent({ keepAlive: true, maxSockets: MAX_SOCKETS, maxFreeSockets: MAX_SOCKETS, ...lookup });
    this.httpAgent = new HttpAgent({ keepAlive: true, maxSockets: MAX_SOCKETS, maxFreeSockets: MAX_SOCKETS, ...lookup });
    this.sessions = new Http2Pools(lookup);
  }

  /** Undefined when the origin could not be asked: the caller uses HTTP/1.1 and the next request asks again. */
  protocolOf(origin: string, timeoutMs: number): Promise<Protocol | undefined> {
    const known = this.known.get(origin);
    if (known) return Promise.resolve(known);
    let protocol = this.protocols.get(origin);
    if (!protocol) {
      if (this.protocols.size >= ORIGIN_CACHE_SIZE) {
        this.protocols.clear();
        this.known.clear();
      }
      protocol = negotiate(new URL(origin), timeoutMs, this.options.lookup);
      this.protocols.set(origin, protocol);
      const asked = protocol;
      void asked.then((result) => {
        if (this.protocols.get(origin) !== asked) return;
        if (result === undefined) this.protocols.delete(origin);
        else this.known.set(origin, result);
      });
    }
    return protocol;
  }

  /** One POST in the origin's protocol; `fields` are shared headers as node:http2's flat list. */
  post(to: Destination, fields: readonly string[], authorization: string, body: string | Buffer, timeoutMs: number): Promise<Http2Answer> {
    const protocol = this.knownProtocol(to.origin);
    if (protocol !== undefined) return this.postIn(protocol, to, fields, authorization, body, timeoutMs);
    return this.protocolOf(to.origin, timeoutMs).then((asked) => this.postIn(asked, to, fields, authorization, body, timeoutMs));
  }

  private postIn(
    protocol: Protocol | undefined,
    to: Destination,
    fields: readonly string[],
    authorization: string,
    body: string | Buffer,
    timeoutMs: number,
  ): Promise<Http2Answer> {
    if (protocol === 'h2') return this.http2At(to.origin).postRaw(to.path, fields, authorization, body, timeoutMs);
    const headers: OutgoingHttpHeaders = { authorization };
    for (let i = 0; i < fields.length; i += 2) headers[fields[i]] = fields[i + 1];
    return http1Post(to.url, to.url.protocol === 'https:' ? this.httpsAgent : this.httpAgent, headers, body, timeoutMs);
  }

  knownProtocol(origin: string): Protocol | undefined {
    return this.known.get(origin);
  }

  http2At(origin: string): ReturnType<Http2Pools['get']> {
    return this.sessions.get(origin, origin);
  }

  get openSessions(): number {
    return this.sessions.openSessions;
  }

  close(): void {
    this.sessions.close();
    this.httpsAgent.destroy();
    this.httpAgent.destroy();
  }
}

/**
 * Asks by a TLS handshake offering h2 and http/1.1, closed at once; no pick is HTTP/1.1. Plain http:// is HTTP/1.1,
 * as curl does (h2c's Upgrade went with RFC 9113). Undefined when the handshake fails.
 */
export function negotiate(origin: URL, timeoutMs: number, lookup?: LookupFunction): Promise<Protocol | undefined> {
  if (origin.protocol !== 'https:') return Promise.resolve('http/1.1');
  return new Promise((resolve) => {
    const host = origin.hostname.replace(/^\[|\]$/g, '');
    const socket = tlsConnect({
      host,
      port: Number(origin.port || 443),
      ...(isIP(host) ? {} : { servername: host }),
      ALPNProtocols: ['h2', 'http/1.1'],
      ...(lookup ? { lookup } : {}),
    });
    const done = (protocol: Protocol | undefined) => {
      socket.destroy();
      resolve(protocol);
    };
    socket.setTimeout(timeoutMs, () => done(undefined));
    socket.once('secureConnect', () => done(socket.alpnProtocol === 'h2' ? 'h2' : 'http/1.1'));
    socket.once('error', () => done(undefined));
  });
}

function http1Post(url: URL, agent: HttpAgent, headers: OutgoingHttpHeaders, body: string | Buffer, timeoutMs: number): Promise<Http2Answer> {
  return new Promise<Http2Answer>((resolve) => {
    let settled = false;
    const finish = (answer: Http2Answer) => {
      if (settled) return;
      settled = true;
      resolve(answer);
    };
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const request = send(url, { method: 'POST', agent, headers: { ...headers, 'content-length': Buffer.byteLength(body) }, timeout: timeoutMs }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        const responseHeaders: IncomingHttpHeaders = response.headers;
        finish({ status: response.statusCode ?? 0, headers: responseHeaders, body: Buffer.concat(chunks).toString('utf8') });
      });
      response.on('error', (error) => finish({ failure: transportReason(error) }));
      // The connection closed before the whole body arrived.
      response.on('close', () => finish({ failure: response.complete ? 'NoResponse' : 'ECONNRESET' }));
    });
    // Socket inactivity, as the HTTP/2 stream timeout: the socket is not reused.
    request.on('timeout', () => {
      finish({ failure: 'Timeout' });
      request.destroy();
    });
    request.on('error', (error) => finish({ failure: transportReason(error) }));
    request.end(body);
  });
}
