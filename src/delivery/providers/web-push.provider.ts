import { Injectable, OnModuleDestroy, Optional } from '@nestjs/common';
import { createPublicKey } from 'node:crypto';
import webpush, { RequestOptions, WebPushError } from 'web-push';
import { WebPushSubscription } from '../../common/platform';
import { FailureReason } from '../../common/vocabulary';
import { PRIVATE_ADDRESS_CODE, WebPushHosts } from '../../common/web-push-hosts';
import { CredentialsError, ProviderCredentials } from '../../credentials/provider-credentials';
import { checkVapid } from '../../credentials/web-push.credentials';
import { MetricsService } from '../../metrics/metrics.service';
import { Http2Answer } from './http2-session-pool';
import { OriginTransport } from './origin-transport';
import { encryptWebPushMessage } from './web-push-encryption';
import { answerAtHost, atHost, PROVIDER_TIMEOUT_MS, retryAfterMs, retryOutcome, transportReason } from './provider-http';
import { PAYLOAD_LIMITS, PushContent, webPushBody, webPushHeaderFields, WebPushKind, webPushTopicOf, webPushTtlOf, webPushUrgencyOf } from './payloads';
import { CredentialCheck, DeliveryOutcome, DeliveryTarget, PushProvider } from './push-provider';

const VAPID_LIFETIME_SECONDS = 12 * 60 * 60;
const VAPID_CACHE_SIZE = 1000;

/** Web Push (RFC 8030/8291/8292), to browsers and to UnifiedPush distributors: HTTP/2 with our encryption where negotiated (docs/decisions/0020-provider-http2-negotiated-per-origin.md), else web-push. */
@Injectable()
export class WebPushProvider implements PushProvider, OnModuleDestroy {
  readonly platform = 'web' as const;
  /** Push services have no validate-only send. */
  readonly validatesDryRun = false;
  timeoutMs = PROVIDER_TIMEOUT_MS;

  private readonly vapidHeaders = new Map<string, VapidHeaders>();
  private readonly vapidHeadersOf = new WeakMap<Vapid, VapidHeaders>();
  private readonly transport: OriginTransport;

  /** Every connection resolves through `hosts.lookup`, which refuses private addresses. */
  constructor(
    private readonly hosts: WebPushHosts,
    @Optional() private readonly metrics?: MetricsService,
  ) {
    this.transport = new OriginTransport({ lookup: hosts.lookup });
  }

  configured(credentials: ProviderCredentials): boolean {
    return credentials.vapid !== null;
  }

  async send(credentials: ProviderCredentials, content: PushContent, target: DeliveryTarget): Promise<DeliveryOutcome> {
    const vapid = credentials.vapid;
    if (!vapid) return { kind: 'failed', reason: FailureReason.VapidNotConfigured };
    const subscription = target.webPushSubscription;
    if (!subscription) return { kind: 'failed', reason: FailureReason.MissingSubscription };
    // Shape checks only: importing p256dh costs more than the send, so it is checked after a failure.
    const endpoint = httpsEndpoint(subscription);
    const keys = wellFormedKeys(subscription);
    if (!endpoint || !keys) return { kind: 'invalid', reason: FailureReason.InvalidSubscription };
    // Again: the allow-list may have changed since registration.
    if (this.hosts.urlProblem(endpoint) !== null) return { kind: 'invalid', reason: FailureReason.EndpointNotAllowed };
    // The push service origin, which is also the VAPID audience.
    const audience = endpoint.origin;
    // An Android app's distributor gets the UnifiedPush payload, over the same protocol (docs/api.md#unifiedpush).
    const kind: WebPushKind = target.pushProvider === 'unifiedpush' ? 'unifiedpush' : 'web_push';
    // The API sizes an android send by FCM's rule; a distributor takes at most 4,096 bytes (UnifiedPush server spec).
    if (kind === 'unifiedpush' && webPushBody(content, kind).length > PAYLOAD_LIMITS.web) return { kind: 'failed', reason: FailureReason.PayloadTooLarge };
    const authorization = this.vapidHeader(audience, vapid);
    try {
      const protocol = this.transport.knownProtocol(audience) ?? (await this.transport.protocolOf(audience, this.timeoutMs));
      if (protocol !== 'h2') return await this.sendHttp1(subscription, endpoint, content, authorization, kind);
      const { body } = encryptWebPushMessage(webPushBody(content, kind), keys.p256dh, keys.auth);
      const path = `${endpoint.pathname}${endpoint.search}`;
      const answer = await this.transport.http2At(audience).postRaw(path, webPushHeaderFields(content, kind), authorization, body, this.timeoutMs);
      this.metrics?.recordProviderAnswer('web_push', 'status' in answer ? answer.status : undefined);
      return outcomeOfAnswer(answerAtHost(answer, endpoint));
    } catch (error) {
      if (!(error instanceof WebPushError) && !keyOnCurve(keys.p256dh)) return { kind: 'invalid', reason: FailureReason.InvalidSubscription };
      this.metrics?.recordProviderAnswer('web_push', error instanceof WebPushError ? error.statusCode : undefined);
      return outcomeOf(error, endpoint);
    }
  }

  private async sendHttp1(
    subscription: WebPushSubscription,
    endpoint: URL,
    content: PushContent,
    authorization: string,
    kind: WebPushKind,
  ): Promise<DeliveryOutcome> {
    const options: RequestOptions = {
      // A ready VAPID header, else web-push signs a JWT per message.
      headers: { Authorization: authorization },
      TTL: webPushTtlOf(content),
      urgency: webPushUrgencyOf(content),
      topic: webPushTopicOf(content),
      contentEncoding: 'aes128gcm',
      timeout: this.timeoutMs,
      agent: this.transport.httpsAgent,
    };
    // The checked WHATWG href, so web-push's legacy parser sees the same host.
    const { statusCode, headers } = await webpush.sendNotification({ ...subscription, endpoint: endpoint.href }, webPushBody(content, kind), options);
    this.metrics?.recordProviderAnswer('web_push', statusCode);
    return acceptedAt(headers?.location);
  }

  /** `vapid t=<JWT>, k=<key>` per origin, reused while more than half of its 12 hours are left. */
  private vapidHeader(audience: string, vapid: Vapid): string {
    let byAudience = this.vapidHeadersOf.get(vapid);
    if (byAudience === undefined) {
      const key = `${vapid.subject} ${vapid.publicKey} ${vapid.privateKey}`;
      byAudience = this.vapidHeaders.get(key);
      if (byAudience === undefined) {
        if (this.vapidHeaders.size >= VAPID_CACHE_SIZE) this.vapidHeaders.delete(this.vapidHeaders.keys().next().value!);
        byAudience = new Map();
        this.vapidHeaders.set(key, byAudience);
      }
      this.vapidHeadersOf.set(vapid, byAudience);
    }
    const now = Math.floor(Date.now() / 1000);
    const cached = byAudience.get(audience);
    if (cached && cached.expiresAt - now > VAPID_LIFETIME_SECONDS / 2) return cached.header;
    const expiresAt = now + VAPID_LIFETIME_SECONDS;
    const { Authorization } = webpush.getVapidHeaders(audience, vapid.subject, vapid.publicKey, vapid.privateKey, 'aes128gcm', expiresAt);
    if (byAudience.size >= VAPID_CACHE_SIZE) byAudience.delete(byAudience.keys().next().value!);
    byAudience.set(audience, { header: Authorization, expiresAt });
    return Authorization;
  }

  /** Pair matches, subject is a contact, a token signs (docs/api.md#credentials-check): no push service to ask. */
  async check(credentials: ProviderCredentials): Promise<CredentialCheck> {
    const vapid = credentials.vapid!;
    try {
      checkVapid(vapid);
      webpush.getVapidHeaders('https://push.example', vapid.subject, vapid.publicKey, vapid.privateKey, 'aes128gcm');
    } catch (error) {
      return { ok: false, detail: error instanceof CredentialsError ? error.message : `VAPID signing failed: ${(error as Error).message}` };
    }
    return { ok: true, detail: `VAPID key pair ${vapid.publicKey.slice(0, 12)}... signs, subject ${vapid.subject}` };
  }

  get openSessions(): number {
    return this.transport.openSessions;
  }

  onModuleDestroy(): void {
    this.transport.close();
  }
}

type Vapid = NonNullable<ProviderCredentials['vapid']>;
type VapidHeaders = Map<string, { header: string; expiresAt: number }>;

function httpsEndpoint(subscription: WebPushSubscription): URL | null {
  try {
    const url = new URL(subscription.endpoint);
    return url.protocol === 'https:' ? url : null;
  } catch {
    return null;
  }
}

function wellFormedKeys(subscription: WebPushSubscription): { p256dh: Buffer; auth: Buffer } | null {
  const p256dh = Buffer.from(subscription.keys?.p256dh ?? '', 'base64url');
  const auth = Buffer.from(subscription.keys?.auth ?? '', 'base64url');
  return p256dh.length === 65 && p256dh[0] === 0x04 && auth.length === 16 ? { p256dh, auth } : null;
}

/** Whether p256dh is on P-256: asked only after a failed encryption. */
function keyOnCurve(point: Buffer): boolean {
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

/** RFC 8030 §5: the push service names the message it created in `Location` (docs/api.md#provider-message-ids). */
function acceptedAt(location: string | string[] | undefined): DeliveryOutcome {
  const value = Array.isArray(location) ? location[0] : location;
  return value ? { kind: 'accepted', providerMessageId: value } : { kind: 'accepted' };
}

export function outcomeOfAnswer(answer: Http2Answer): DeliveryOutcome {
  if ('failure' in answer) return transportOutcome(answer.failure);
  if (answer.status >= 200 && answer.status < 300) return acceptedAt(answer.headers.location);
  return statusOutcome(answer.status, answer.headers['retry-after']);
}

/** Push service status -> outcome (RFC 8030 §5 and §8.3); anything without a status is transport. */
function outcomeOf(error: unknown, endpoint: URL): DeliveryOutcome {
  if (!(error instanceof WebPushError)) return transportOutcome(atHost(transportReason(error), endpoint));
  return statusOutcome(error.statusCode, error.headers?.['retry-after']);
}

/** A private address fails for good without invalidating the installation: DNS may be fixed. */
function transportOutcome(reason: string): DeliveryOutcome {
  return reason.split(' ')[0] === PRIVATE_ADDRESS_CODE ? { kind: 'failed', reason: FailureReason.PrivateAddress } : retryOutcome(reason);
}

function statusOutcome(status: number, retryAfter: string | string[] | undefined): DeliveryOutcome {
  if (status === 404) return { kind: 'invalid', reason: 'NotFound' };
  if (status === 410) return { kind: 'invalid', reason: 'Gone' };
  if (status === 413) return { kind: 'failed', reason: FailureReason.PayloadTooLarge };
  if (status === 429 || status >= 500) return retryOutcome(`HTTP ${status}`, retryAfterMs(retryAfter));
  return { kind: 'failed', reason: `HTTP ${status}` };
}
