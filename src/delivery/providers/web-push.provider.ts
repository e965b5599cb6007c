import { Injectable, OnModuleDestroy } from '@nestjs/common';
import { createPublicKey } from 'node:crypto';
import { Agent } from 'node:https';
import webpush, { WebPushError } from 'web-push';
import { priorityOf, PushContent, webPushPayload, webPushTopicOf } from '../../common/push-payloads';
import { WebPushSubscription } from '../../installations/installation.entity';
import { PROVIDER_TIMEOUT_MS, retryAfterMs, retryOutcome, transportReason } from './provider-http';
import { DeliveryOutcome, DeliveryTarget, ProviderCredentials, PushProvider } from './push-provider';

/** RFC 8030 TTL when the notification sets none: four weeks, the longest push services keep. */
const DEFAULT_TTL_SECONDS = 2_419_200;
const VAPID_LIFETIME_SECONDS = 12 * 60 * 60;
/** Push service origins x VAPID keys remembered; there are only a handful of push services. */
const VAPID_CACHE_SIZE = 1000;

/**
 * Web Push (RFC 8030) with aes128gcm payload encryption (RFC 8291) and VAPID (RFC 8292), through
 * the `web-push` package. Every subscription names its push service (FCM, Mozilla autopush, Apple),
 * so one keep-alive agent serves them all, reusing TLS connections per origin.
 */
@Injectable()
export class WebPushProvider implements PushProvider, OnModuleDestroy {
  readonly platform = 'web' as const;
  /** Per-request (socket inactivity) deadline; lowered by tests. */
  timeoutMs = PROVIDER_TIMEOUT_MS;

  private readonly agent = new Agent({ keepAlive: true, maxSockets: 256, maxFreeSockets: 256 });
  private readonly vapidHeaders = new Map<string, { header: string; expiresAt: number }>();

  configured(credentials: ProviderCredentials): boolean {
    return credentials.vapid !== null;
  }

  async send(credentials: ProviderCredentials, content: PushContent, target: DeliveryTarget): Promise<DeliveryOutcome> {
    const vapid = credentials.vapid;
    if (!vapid) return { kind: 'failed', reason: 'VapidNotConfigured' };
    const subscription = target.webPushSubscription;
    if (!subscription) return { kind: 'failed', reason: 'MissingSubscription' };
    // Cheap shape checks first; whether p256dh is really a point on the curve is asked only when
    // encryption fails (importing the key for every send cost more than the send itself).
    const audience = audienceOf(subscription);
    if (!audience || !wellFormedKeys(subscription)) return { kind: 'invalid', reason: 'InvalidSubscription' };

    try {
      await webpush.sendNotification(subscription, JSON.stringify(webPushPayload(content)), {
        // No vapidDetails: VAPID goes as a ready header, else web-push signs an ES256 JWT per message.
        headers: { Authorization: this.vapidHeader(audience, vapid) },
        TTL: content.options?.ttl ?? DEFAULT_TTL_SECONDS,
        urgency: priorityOf(content) === 'high' ? 'high' : 'normal',
        topic: webPushTopicOf(content),
        contentEncoding: 'aes128gcm',
        timeout: this.timeoutMs,
        agent: this.agent,
      });
      return { kind: 'accepted' };
    } catch (error) {
      if (!(error instanceof WebPushError) && !keyOnCurve(subscription)) return { kind: 'invalid', reason: 'InvalidSubscription' };
      return outcomeOf(error);
    }
  }

  /**
   * `vapid t=<JWT>, k=<public key>` for one push service origin, signed once and reused while it
   * has more than half of its 12 hours left (RFC 8292 allows up to 24 hours).
   */
  private vapidHeader(audience: string, vapid: NonNullable<ProviderCredentials['vapid']>): string {
    const key = `${audience} ${vapid.subject} ${vapid.publicKey} ${vapid.privateKey}`;
    const now = Math.floor(Date.now() / 1000);
    const cached = this.vapidHeaders.get(key);
    if (cached && cached.expiresAt - now > VAPID_LIFETIME_SECONDS / 2) return cached.header;
    const expiresAt = now + VAPID_LIFETIME_SECONDS;
    const { Authorization } = webpush.getVapidHeaders(audience, vapid.subject, vapid.publicKey, vapid.privateKey, 'aes128gcm', expiresAt);
    if (this.vapidHeaders.size >= VAPID_CACHE_SIZE) this.vapidHeaders.delete(this.vapidHeaders.keys().next().value!);
    this.vapidHeaders.set(key, { header: Authorization, expiresAt });
    return Authorization;
  }

  onModuleDestroy(): void {
    this.agent.destroy();
  }
}

/** The push service origin (VAPID audience) of an https endpoint, else null. */
function audienceOf(subscription: WebPushSubscription): string | null {
  try {
    const url = new URL(subscription.endpoint);
    return url.protocol === 'https:' ? url.origin : null;
  } catch {
    return null;
  }
}

/** p256dh 65 bytes starting 0x04 (uncompressed point), auth 16 bytes (RFC 8291 §3). */
function wellFormedKeys(subscription: WebPushSubscription): boolean {
  const point = Buffer.from(subscription.keys?.p256dh ?? '', 'base64url');
  return point.length === 65 && point[0] === 0x04 && Buffer.from(subscription.keys?.auth ?? '', 'base64url').length === 16;
}

/**
 * Whether p256dh, already known to be well formed, is a point on P-256: asked only after a
 * failed encryption, since importing the key costs more than a send.
 */
function keyOnCurve(subscription: WebPushSubscription): boolean {
  const point = Buffer.from(subscription.keys.p256dh, 'base64url');
  try {
    createPublicKey({
      format: 'jwk',
      key: { kty: 'EC', crv: 'P-256', x: point.subarray(1, 33).toString('base64url'), y: point.subarray(33).toString('base64url') },
    });
    return true;
  } catch {
    return false;
  }
}

/** Push service status -> outcome (RFC 8030 §5 and §8.3); anything without a status is transport. */
function outcomeOf(error: unknown): DeliveryOutcome {
  if (!(error instanceof WebPushError)) return retryOutcome(transportReason(error));
  const status = error.statusCode;
  if (status === 404) return { kind: 'invalid', reason: 'NotFound' };
  if (status === 410) return { kind: 'invalid', reason: 'Gone' };
  if (status === 413) return { kind: 'failed', reason: 'PayloadTooLarge' };
  if (status === 429 || status >= 500) return retryOutcome(`HTTP ${status}`, retryAfterMs(error.headers?.['retry-after']));
  return { kind: 'failed', reason: `HTTP ${status}` };
}
