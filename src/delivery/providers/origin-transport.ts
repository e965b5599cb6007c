import { Agent as HttpAgent, IncomingHttpHeaders, OutgoingHttpHeaders, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { isIP, LookupFunction } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { Http2Answer, Http2Pools } from './http2-session-pool';
import { transportReason } from './provider-http';

/** What an origin speaks: HTTP/2, or HTTP/1.1 over keep-alive connections. */
export type Protocol = 'h2' | 'http/1.1';

/** Origins whose protocol is remembered; far more than the provider hosts there are. */
const ORIGIN_CACHE_SIZE = 1000;
/** HTTP/1.1 sockets per origin: each carries one request at a time. */
const MAX_SOCKETS = 256;

/** Where requests go, worked out once (FCM's send URL of a project): the URL, its origin and its path. */
export interface Destination {
  url: URL;
  origin: string;
  path: string;
}

export const destinationOf = (url: URL): Destination => ({ url, origin: url.origin, path: `${url.pathname}${url.search}` });

export interface OriginTransportOptions {
  /**
   * Resolves every connection (probe, HTTP/1.1 sockets, HTTP/2 sessions): Web Push passes the one
   * that refuses private addresses.
   */
  lookup?: LookupFunction;
}

/**
 * Requests to provider origins over whatever each origin speaks (docs/api.md#delivery): asked
 * once per origin with a TLS handshake offering `h2` and `http/1.1` (ALPN), then HTTP/2 streams on
 * a few pooled connections (Http2Pools) where the server picked h2, and keep-alive HTTP/1.1
 * otherwise. Shared by FCM and Web Push; APNs speaks only HTTP/2 and uses Http2Pools directly.
 */
export class OriginTransport {
  /** Keep-alive HTTP/1.1 agents; exposed for a client library that makes its own requests (web-push). */
  readonly httpsAgent: HttpsAgent;
  private readonly httpAgent: HttpAgent;
  private readonly sessions: Http2Pools;
  /** What each origin negotiated, asked once per process (and again after a failed probe). */
  private readonly protocols = new Map<string, Promise<Protocol | undefined>>();
  /** The settled answers, so the hot path does not wait a turn for an already known protocol. */
  private readonly known = new Map<string, Protocol>();

  constructor(private readonly options: OriginTransportOptions = {}) {
    const lookup = options.lookup ? { lookup: options.lookup } : {};
    this.httpsAgent = new HttpsAgent({ keepAlive: true, maxSockets: MAX_SOCKETS, maxFreeSockets: MAX_SOCKETS, ...lookup });
    this.httpAgent = new HttpAgent({ keepAlive: true, maxSockets: MAX_SOCKETS, maxFreeSockets: MAX_SOCKETS, ...lookup });
    this.sessions = new Http2Pools(lookup);
  }

  /**
   * 'h2' or 'http/1.1' for an origin (`https://host:port`); undefined when it could not be asked
   * (the caller then uses HTTP/1.1, and the next request asks again).
   */
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

  /**
   * One POST in the origin's protocol: the answer, or the transport failure that prevented one.
   * `fields` are headers shared by many requests, as a flat list (`[name, value, ...]`), and
   * `authorization` is the request's own: over HTTP/2 node:http2 takes them as they are
   * (Http2SessionPool.postRaw). An origin whose protocol is known is asked without waiting a turn.
   */
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

  /** What an origin negotiated, when it has been asked already: no turn waited (protocolOf waits one). */
  knownProtocol(origin: string): Protocol | undefined {
    return this.known.get(origin);
  }

  /** The HTTP/2 connection pool of an origin (for a caller that builds its own HTTP/2 request). */
  http2At(origin: string): ReturnType<Http2Pools['get']> {
    return this.sessions.get(origin, origin);
  }

  /** Open HTTP/2 connections, over all origins (for tests and diagnostics). */
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
 * Asks an origin which protocol it speaks: a TLS handshake offering h2 and http/1.1 (ALPN), closed
 * at once. A server that picks none, or answers with a no_application_protocol alert to h2, is
 * HTTP/1.1. A plain http:// origin has no handshake to ask, and an HTTP/1.1 server answers an HTTP/2
 * preface with an error: it gets HTTP/1.1, as curl does without --http2-prior-knowledge (h2c's
 * Upgrade dance, RFC 7540 §3.2, was removed from HTTP/2 by RFC 9113). Undefined when the handshake
 * itself fails.
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

/** One HTTP/1.1 POST on a keep-alive agent, answered in the same shape as an HTTP/2 exchange. */
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
    // Socket inactivity, as the HTTP/2 path's stream timeout: the socket is not reused.
    request.on('timeout', () => {
      finish({ failure: 'Timeout' });
      request.destroy();
    });
    request.on('error', (error) => finish({ failure: transportReason(error) }));
    request.end(body);
  });
}
