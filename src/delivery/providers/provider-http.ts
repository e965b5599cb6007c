import type { IncomingHttpHeaders } from 'node:http2';
import { DeliveryOutcome } from './push-provider';

export type Http2Answer = { status: number; headers: IncomingHttpHeaders; body: string } | { failure: string };

export const PROVIDER_TIMEOUT_MS = 10_000;

/** `Retry-After` (RFC 9110 §10.2.3) in ms, seconds or an HTTP date; undefined (the caller's backoff) when absent or unparseable. */
export function retryAfterMs(value: string | string[] | number | null | undefined, now = Date.now()): number | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  if (text === undefined || text === null || text === '') return undefined;
  const raw = String(text).trim();
  if (/^\d+$/.test(raw)) return Number(raw) * 1000;
  const date = Date.parse(raw);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

export function retryOutcome(reason: string, retryAfter?: number): DeliveryOutcome {
  return retryAfter === undefined ? { kind: 'retry', reason } : { kind: 'retry', reason, retryAfterMs: retryAfter };
}

/** A transport failure's reason names the host it could not reach (docs/api.md#delivery): `ENOTFOUND api.push.apple.com`. */
export function atHost(reason: string, url: URL): string {
  return `${reason} ${url.hostname}`;
}

export function answerAtHost(answer: Http2Answer, url: URL): Http2Answer {
  return 'failure' in answer ? { failure: atHost(answer.failure, url) } : answer;
}

export function transportReason(error: unknown): string {
  // Duck-typed: errors of Node internals or another realm are not this realm's Error.
  if (typeof error !== 'object' || error === null) return String(error).slice(0, 200);
  const { name, code, message, cause } = error as { name?: unknown; code?: unknown; message?: unknown; cause?: unknown };
  if (name === 'TimeoutError' || name === 'AbortError') return 'Timeout';
  if (typeof cause === 'object' && cause !== null) return transportReason(cause);
  const text = typeof message === 'string' ? message : '';
  const nghttp2 = /NGHTTP2_[A-Z_]+/.exec(text)?.[0];
  if (nghttp2) return nghttp2;
  if (typeof code === 'string' && code !== '') return code;
  return (text || (typeof name === 'string' ? name : 'Error')).slice(0, 200);
}
