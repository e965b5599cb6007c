/** What never reaches a log line or error report (docs/decisions/0007-secrets-censored-by-serializers.md). */
export const CENSOR = '[Redacted]';

const SECRET_KEY =
  /^(authorization|proxy-authorization|cookie|set-cookie|token|x[-_]token|auth|bearer|app[-_]?key|app[-_]key[-_]previous)$|password|passphrase|secret|private[-_]?key|push[-_]?token|web[-_]?push[-_]?subscription|access[-_]?token|refresh[-_]?token|auth[-_]?token|api[-_]?token|api[-_]?key/i;
const MAX_DEPTH = 8;

export function isSecretKey(key: string): boolean {
  return SECRET_KEY.test(key);
}

const SECRET_VALUE = /pns_[A-Za-z0-9]{16,}|idv_[A-Za-z0-9]{16,}|whsec_[A-Za-z0-9+/]{16,}=*/;
const SECRET_VALUES = new RegExp(SECRET_VALUE.source, 'g');

export function censorSecretValues(text: string): string {
  return SECRET_VALUE.test(text) ? text.replace(SECRET_VALUES, CENSOR) : text;
}

/** A copy with every secret-named key censored; class instances have their own serializers. */
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

/** `url` with secret-named query parameters and secret-shaped parts censored. */
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
      const key = /\[([^\]]*)\]$/.exec(decoded)?.[1] ?? decoded;
      return isSecretKey(key) || isSecretKey(decoded) ? `${separator}${name}=${CENSOR}` : whole;
    })
  );
}
