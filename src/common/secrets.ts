/**
 * What never reaches a log line or an error report: secret-named keys and query parameters, and
 * any string shaped like one of our own secrets, whatever carries it.
 * Here, in common, because both the logging setup and the exceptions filter censor with it.
 */
export const CENSOR = '[Redacted]';

/**
 * Key names whose values never reach a log line, wherever they sit: bearer tokens, device push
 * tokens and subscriptions, provider private keys (APNs .p8, FCM service account, VAPID),
 * passwords and the APP_KEY (and APP_KEY_PREVIOUS). Words may be joined by `_`, `-` (header names:
 * X-Api-Key) or nothing. `tokenId`/`token_id` stay: they identify a token without revealing it.
 */
const SECRET_KEY =
  /^(authorization|proxy-authorization|cookie|set-cookie|token|x[-_]token|auth|bearer|app[-_]?key|app[-_]key[-_]previous)$|password|passphrase|secret|private[-_]?key|push[-_]?token|web[-_]?push[-_]?subscription|access[-_]?token|refresh[-_]?token|auth[-_]?token|api[-_]?token|api[-_]?key/i;
const MAX_DEPTH = 8;

export function isSecretKey(key: string): boolean {
  return SECRET_KEY.test(key);
}

/**
 * Our own secrets by their shape: API tokens (`pns_` + base62), identity secrets (`idv_` +
 * base62) and webhook signing secrets (`whsec_` + base64). One precompiled test per string; the
 * replacement runs only on a hit.
 */
const SECRET_VALUE = /pns_[A-Za-z0-9]{16,}|idv_[A-Za-z0-9]{16,}|whsec_[A-Za-z0-9+/]{16,}=*/;
const SECRET_VALUES = new RegExp(SECRET_VALUE.source, 'g');

/** `text` with every secret-shaped part censored (the same string when there is none). */
export function censorSecretValues(text: string): string {
  return SECRET_VALUE.test(text) ? text.replace(SECRET_VALUES, CENSOR) : text;
}

/**
 * A copy of `value` with every secret-named key censored. Only plain objects and arrays are
 * walked: class instances (errors, requests, buffers) have their own serializers.
 */
export function scrubSecrets<T>(value: T, depth = 0): T {
  if (typeof value === 'string') return censorSecretValues(value) as T;
  if (depth > MAX_DEPTH || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return (value as unknown[]).map((item) => scrubSecrets(item, depth + 1)) as T;
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
    out[key] = isSecretKey(key) && item !== null && item !== undefined ? CENSOR : scrubSecrets(item, depth + 1);
  }
  return out as T;
}

/**
 * `url` with the value of every secret-named query parameter (`access_token`, `token`, `api_key`...)
 * and every secret-shaped part censored. Such tokens are refused (only the Authorization header
 * authenticates), but a caller who sent one must not find it in the logs either.
 */
export function redactUrl(url: string): string {
  const censored = censorSecretValues(url);
  const query = censored.indexOf('?');
  if (query === -1) return censored;
  return redactQuery(censored, query);
}

function redactQuery(url: string, query: number): string {
  return (
    url.slice(0, query) +
    url.slice(query).replace(/([?&;])([^=&;#]*)=([^&;#]*)/g, (whole, separator: string, name: string) => {
      let decoded = name;
      try {
        decoded = decodeURIComponent(name.replace(/\+/g, ' '));
      } catch {
        // an undecodable name is checked as it is
      }
      // `a[access_token]` is how qs-style parsers nest a key.
      const key = /\[([^\]]*)\]$/.exec(decoded)?.[1] ?? decoded;
      return isSecretKey(key) || isSecretKey(decoded) ? `${separator}${name}=${CENSOR}` : whole;
    })
  );
}
