import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { WEBHOOK_EVENT_TYPES, WebhookEventType } from '../common/webhook-events';

/** A call answered 2xx within this long is delivered; anything else is retried (docs/api.md#webhooks). */
export const WEBHOOK_TIMEOUT_MS = 10_000;

/** The wait before the first retry (WEBHOOK_FIRST_RETRY_MS's default), and how much longer each next wait is (docs/api.md#webhooks). */
export const FIRST_RETRY_MS = 5_000;
export const RETRY_FACTOR = 5;
/** No single wait is longer than a day, whatever WEBHOOK_MAX_ATTEMPTS says. */
export const MAX_RETRY_MS = 24 * 60 * 60 * 1000;

/** URLs are stored in a varchar(2048). */
const MAX_URL_LENGTH = 2048;
/** Random bytes of a new secret (Standard Webhooks asks for 24 to 64). */
const SECRET_BYTES = 32;
export const SECRET_PREFIX = 'whsec_';

/** A webhook operation that cannot be done (bad URL, unknown event, app or webhook, a secret that will not open): said as one line. */
export class WebhookError extends Error {}

/**
 * The wait after failed attempt `attempt` (1 for the first call) before the next one: 5 s, 25 s,
 * 2 min, 10 min, 52 min, 4.3 h, 21.7 h, so the default 8 attempts span about 27 hours.
 */
export function retryDelayMs(attempt: number, firstMs = FIRST_RETRY_MS): number {
  return Math.min(firstMs * RETRY_FACTOR ** Math.max(0, attempt - 1), MAX_RETRY_MS);
}

/** `--events e1,e2`: known event types, each once, at least one. */
export function parseEvents(text: string): WebhookEventType[] {
  const names = [
    ...new Set(
      text
        .split(',')
        .map((name) => name.trim())
        .filter((name) => name !== ''),
    ),
  ];
  if (names.length === 0) throw new WebhookError(`--events must name at least one of ${WEBHOOK_EVENT_TYPES.join(', ')}`);
  for (const name of names) {
    if (!(WEBHOOK_EVENT_TYPES as readonly string[]).includes(name)) {
      throw new WebhookError(`Unknown event "${name}": --events takes ${WEBHOOK_EVENT_TYPES.join(', ')}`);
    }
  }
  return names as WebhookEventType[];
}

/** `--url`: an absolute http:// or https:// URL, without user info, at most 2048 characters. */
export function parseUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    throw new WebhookError(`--url must be an absolute http:// or https:// URL, not "${text}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new WebhookError(`--url must be an http:// or https:// URL, not ${url.protocol}`);
  }
  // A password in the URL would be stored and listed in clear; the signature authenticates instead.
  if (url.username || url.password) throw new WebhookError('--url must not hold a user name or password');
  const normalized = url.toString();
  if (normalized.length > MAX_URL_LENGTH) throw new WebhookError(`--url must be at most ${MAX_URL_LENGTH} characters`);
  return normalized;
}

/** A new signing secret: `whsec_` + base64 of 32 random bytes. */
export function newSecret(): string {
  return SECRET_PREFIX + randomBytes(SECRET_BYTES).toString('base64');
}

/**
 * The headers of one call (docs/api.md#webhooks), signed by the Standard Webhooks reference library:
 * `v1,` + base64 HMAC-SHA256 of `{id}.{timestamp}.{body}` under the secret's decoded bytes.
 */
export function signedHeaders(secret: string, messageId: string, body: string, now: Date): Record<string, string> {
  return {
    'content-type': 'application/json',
    'webhook-id': messageId,
    'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
    'webhook-signature': new Webhook(secret).sign(messageId, now, body),
  };
}

/** A 2xx answer is success; a redirect is not followed and counts as a failure. */
export const isDelivered = (status: number) => status >= 200 && status < 300;
