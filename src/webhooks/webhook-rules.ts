import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { WEBHOOK_EVENT_TYPES, WebhookEventType } from '../common/webhook-events';

/** Answered 2xx within this long is delivered (docs/api.md#webhooks). */
export const WEBHOOK_TIMEOUT_MS = 10_000;

export const FIRST_RETRY_MS = 5_000;
export const RETRY_FACTOR = 5;
export const MAX_RETRY_MS = 24 * 60 * 60 * 1000;

const MAX_URL_LENGTH = 2048;
/** Standard Webhooks asks for 24 to 64. */
const SECRET_BYTES = 32;
export const SECRET_PREFIX = 'whsec_';

export class WebhookError extends Error {}

/** 5 s, 25 s, 2 min... 21.7 h after failed attempt `attempt` (with `firstMs` 5 s): the default 8 span about 27 hours. */
export function retryDelayMs(attempt: number, firstMs = FIRST_RETRY_MS): number {
  return Math.min(firstMs * RETRY_FACTOR ** Math.max(0, attempt - 1), MAX_RETRY_MS);
}

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
  // A password would be stored and listed in clear; the signature authenticates instead.
  if (url.username || url.password) throw new WebhookError('--url must not hold a user name or password');
  const normalized = url.toString();
  if (normalized.length > MAX_URL_LENGTH) throw new WebhookError(`--url must be at most ${MAX_URL_LENGTH} characters`);
  return normalized;
}

export function newSecret(): string {
  return SECRET_PREFIX + randomBytes(SECRET_BYTES).toString('base64');
}

/** Standard Webhooks headers (docs/api.md#webhooks): `v1,` + HMAC-SHA256 of `{id}.{timestamp}.{body}`. */
export function signedHeaders(secret: string, messageId: string, body: string, now: Date): Record<string, string> {
  return {
    'content-type': 'application/json',
    'webhook-id': messageId,
    'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
    'webhook-signature': new Webhook(secret).sign(messageId, now, body),
  };
}

/** A redirect is not followed and counts as a failure. */
export const isDelivered = (status: number) => status >= 200 && status < 300;
