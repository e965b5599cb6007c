import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';
import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { DeliveryOutcome } from './push-provider';

/**
 * Small pieces every provider shares. Providers turn every provider answer and transport failure
 * into a DeliveryOutcome (push-provider.ts); these keep the mapping consistent.
 */

/** Per-request deadline: a provider that has not answered by then is retried later. */
export const PROVIDER_TIMEOUT_MS = 10_000;

/**
 * `Retry-After` (RFC 9110 §10.2.3) in milliseconds: delay-seconds or an HTTP date. Undefined when
 * absent or unparseable, so the caller's own backoff applies.
 */
export function retryAfterMs(value: string | string[] | number | null | undefined, now = Date.now()): number | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  if (text === undefined || text === null || text === '') return undefined;
  const raw = String(text).trim();
  if (/^\d+$/.test(raw)) return Number(raw) * 1000;
  const date = Date.parse(raw);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** A retry outcome, carrying retryAfterMs only when the provider gave one. */
export function retryOutcome(reason: string, retryAfter?: number): DeliveryOutcome {
  return retryAfter === undefined ? { kind: 'retry', reason } : { kind: 'retry', reason, retryAfterMs: retryAfter };
}

/** A short, log-friendly name for a transport error (ECONNRESET, Timeout, ...). */
export function transportReason(error: unknown): string {
  // Duck-typed, not `instanceof Error`: errors raised by Node internals or another realm (a
  // test sandbox) are not instances of this realm's Error.
  if (typeof error !== 'object' || error === null) return String(error).slice(0, 200);
  const { name, code, message, cause } = error as { name?: unknown; code?: unknown; message?: unknown; cause?: unknown };
  if (name === 'TimeoutError' || name === 'AbortError') return 'Timeout';
  const text = typeof message === 'string' ? message : '';
  // HTTP/2 stream errors all share one code; the nghttp2 error name says what happened.
  const nghttp2 = /NGHTTP2_[A-Z_]+/.exec(text)?.[0];
  if (nghttp2) return nghttp2;
  if (typeof code === 'string' && code !== '') return code;
  // fetch wraps the socket error in `cause`.
  if (cause !== undefined) return transportReason(cause);
  return (text || (typeof name === 'string' ? name : 'Error')).slice(0, 200);
}

export interface HttpAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** Keep-alive agents for one provider: connections are bounded and reused, one TLS handshake each. */
export interface KeepAliveAgents {
  http: HttpAgent;
  https: HttpsAgent;
}

export function keepAliveAgents(maxSockets: number): KeepAliveAgents {
  const options = { keepAlive: true, maxSockets, maxFreeSockets: maxSockets };
  return { http: new HttpAgent(options), https: new HttpsAgent(options) };
}

/**
 * One POST through a keep-alive agent, answered with status, headers and body text; rejects on
 * transport failures, and with a TimeoutError when the exchange takes over `timeoutMs` once it has a
 * connection.
 */
export function postText(url: URL, headers: OutgoingHttpHeaders, body: string, timeoutMs: number, agents: KeepAliveAgents): Promise<HttpAnswer> {
  const https = url.protocol === 'https:';
  return new Promise((resolve, reject) => {
    let timer: NodeJS.Timeout | undefined;
    const fail = (error: Error) => {
      clearTimeout(timer);
      reject(error);
    };
    const req = (https ? httpsRequest : httpRequest)(
      url,
      { method: 'POST', headers: { ...headers, 'content-length': Buffer.byteLength(body) }, agent: https ? agents.https : agents.http },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          clearTimeout(timer);
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') });
        });
        res.on('error', fail);
      },
    );
    // The deadline starts once a connection is ours: time queued behind our own other sends for
    // one of the agent's sockets is not the provider's slowness, and a false timeout re-sends.
    req.once('socket', () => {
      timer = setTimeout(() => {
        const error = new Error(`No answer within ${timeoutMs} ms`);
        error.name = 'TimeoutError';
        req.destroy(error);
      }, timeoutMs);
    });
    req.on('error', fail);
    req.end(body);
  });
}
