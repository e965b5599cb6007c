import type { IncomingHttpHeaders } from 'node:http2';
import { DeliveryOutcome } from './push-provider';

/**
 * Small pieces every provider shares. Providers turn every provider answer and transport failure
 * into a DeliveryOutcome (push-provider.ts); these keep the mapping consistent.
 */

/** What one exchange produced: an HTTP answer, or the transport failure that prevented one. */
export type Http2Answer = { status: number; headers: IncomingHttpHeaders; body: string } | { failure: string };

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

/**
 * A transport failure's reason names the host it could not reach (docs/api.md#delivery), so an
 * operator sees which endpoint is wrong: `ENOTFOUND api.sandbox.push.apple.com`.
 */
export function atHost(reason: string, url: URL): string {
  return `${reason} ${url.hostname}`;
}

/** The same for an exchange: a failure gets the host, an answer is returned as it is. */
export function answerAtHost(answer: Http2Answer, url: URL): Http2Answer {
  return 'failure' in answer ? { failure: atHost(answer.failure, url) } : answer;
}

/** A short, log-friendly name for a transport error (ECONNRESET, Timeout, ...). */
export function transportReason(error: unknown): string {
  // Duck-typed, not `instanceof Error`: errors raised by Node internals or another realm (a
  // test sandbox) are not instances of this realm's Error.
  if (typeof error !== 'object' || error === null) return String(error).slice(0, 200);
  const { name, code, message, cause } = error as { name?: unknown; code?: unknown; message?: unknown; cause?: unknown };
  if (name === 'TimeoutError' || name === 'AbortError') return 'Timeout';
  // The underlying cause says what went wrong, the wrapper only how it surfaced: an HTTP/2 stream
  // cancelled because its connection failed (ERR_HTTP2_STREAM_CANCEL) carries the connection's
  // error (ENOTFOUND, ECONNREFUSED), and fetch's "fetch failed" the socket's.
  if (typeof cause === 'object' && cause !== null) return transportReason(cause);
  const text = typeof message === 'string' ? message : '';
  // HTTP/2 stream errors all share one code; the nghttp2 error name says what happened.
  const nghttp2 = /NGHTTP2_[A-Z_]+/.exec(text)?.[0];
  if (nghttp2) return nghttp2;
  if (typeof code === 'string' && code !== '') return code;
  return (text || (typeof name === 'string' ? name : 'Error')).slice(0, 200);
}
