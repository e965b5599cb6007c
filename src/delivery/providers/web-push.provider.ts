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

  private readonly agent = new Agent({ keepAlive: true, maxSockets: 256, maxFreeSockets: 32 });

  configured(credentials: ProviderCredentials): boolean {
    return credentials.vapid !== null;
  }

  async send(credentials: ProviderCredentials, content: PushContent, target: DeliveryTarget): Promise<DeliveryOutcome> {
    const vapid = credentials.vapid;
    if (!vapid) return { kind: 'failed', reason: 'VapidNotConfigured' };
    const subscription = target.webPushSubscription;
    if (!subscription) return { kind: 'failed', reason: 'MissingSubscription' };
    // Keys no browser could have produced can never be encrypted to: the subscription is unusable.
    if (!usableSubscription(subscription)) return { kind: 'invalid', reason: 'InvalidSubscription' };

    try {
      await webpush.sendNotification(subscription, JSON.stringify(webPushPayload(content)), {
        vapidDetails: { subject: vapid.subject, publicKey: vapid.publicKey, privateKey: vapid.privateKey },
        TTL: content.options?.ttl ?? DEFAULT_TTL_SECONDS,
        urgency: priorityOf(content) === 'high' ? 'high' : 'normal',
        topic: webPushTopicOf(content),
        contentEncoding: 'aes128gcm',
        timeout: this.timeoutMs,
        agent: this.agent,
      });
      return { kind: 'accepted' };
    } catch (error) {
      return outcomeOf(error);
    }
  }

  onModuleDestroy(): void {
    this.agent.destroy();
  }
}

/** p256dh an uncompressed P-256 point, auth 16 bytes (RFC 8291 §3), both base64url. */
function usableSubscription(subscription: WebPushSubscription): boolean {
  let url: URL;
  try {
    url = new URL(subscription.endpoint);
  } catch {
    return false;
  }
  const point = Buffer.from(subscription.keys?.p256dh ?? '', 'base64url');
  const auth = Buffer.from(subscription.keys?.auth ?? '', 'base64url');
  if (url.protocol !== 'https:' || point.length !== 65 || point[0] !== 0x04 || auth.length !== 16) return false;
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
