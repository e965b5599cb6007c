import { Injectable, OnModuleDestroy } from '@nestjs/common';
import { createPublicKey } from 'node:crypto';
import webpush, { RequestOptions, WebPushError } from 'web-push';
import { WebPushSubscription } from '../../common/platform';
import { FailureReason } from '../../common/vocabulary';
import { PRIVATE_ADDRESS_CODE, WebPushHosts } from '../../common/web-push-hosts';
import { CredentialsError, ProviderCredentials } from '../../credentials/provider-credentials';
import { checkVapid } from '../../credentials/web-push.credentials';
import { Http2Answer } from './http2-session-pool';
import { OriginTransport } from './origin-transport';
import { encryptWebPushMessage } from './web-push-encryption';
import { answerAtHost, atHost, PROVIDER_TIMEOUT_MS, retryAfterMs, retryOutcome, transportReason } from './provider-http';
import { PushContent, webPushBody, webPushHeaderFields, webPushTopicOf, webPushTtlOf, webPushUrgencyOf } from './payloads';
import { CredentialCheck, DeliveryOutcome, DeliveryTarget, PushProvider } from './push-provider';

const VAPID_LIFETIME_SECONDS = 12 * 60 * 60;
/** VAPID key pairs remembered, and push service origins per pair (there are only a handful of push services). */
const VAPID_CACHE_SIZE = 1000;

/**
 * Web Push (RFC 8030) with aes128gcm payload encryption (RFC 8291) and VAPID (RFC 8292), through
 * the `web-push` package. Every subscription names its push service (FCM, Mozilla autopush, Apple,
 * Microsoft). Those that negotiate HTTP/2 (ALPN `h2`, asked once per origin by OriginTransport, as
 * for FCM) get the messages as streams on a few pooled connections, encrypted by
 * web-push-encryption.ts; the others get web-push's own HTTP/1.1 requests (and its encryption)
 * over the transport's keep-alive agent.
 */
@Injectable()
export class WebPushProvider implements PushProvider, OnModuleDestroy {
  readonly platform = 'web' as const;
  /** Push services have no validate-only send: a dry run does not call them. */
  readonly validatesDryRun = false;
  /** Per-request (socket inactivity) deadline; lowered by tests. */
  timeoutMs = PROVIDER_TIMEOUT_MS;

  /** VAPID headers by key pair and subject, then push service origin (the audience). */
  private readonly vapidHeaders = new Map<string, VapidHeaders>();
  /** The same maps by credentials object, so that a send does not build the key pair's text again. */
  private readonly vapidHeadersOf = new WeakMap<Vapid, VapidHeaders>();
  private readonly transport: OriginTransport;

  /**
   * Every connection (ALPN probe, HTTP/1.1 agent, HTTP/2 sessions) resolves through `hosts.lookup`,
   * which refuses private addresses and hands the socket the address it checked.
   */
  constructor(private readonly hosts: WebPushHosts) {
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
    // Cheap shape checks first; whether p256dh is really a point on the curve is asked only when
    // encryption fails (importing the key for every send cost more than the send itself).
    const endpoint = httpsEndpoint(subscription);
    const keys = wellFormedKeys(subscription);
    if (!endpoint || !keys) return { kind: 'invalid', reason: FailureReason.InvalidSubscription };
    // Registration checked it too, but against the allow-list of that day (or not at all, for
    // rows stored before the check existed).
    if (this.hosts.urlProblem(endpoint) !== null) return { kind: 'invalid', reason: FailureReason.EndpointNotAllowed };
    // The push service origin, which is also the VAPID audience.
    const audience = endpoint.origin;
    const authorization = this.vapidHeader(audience, vapid);
    try {
      const protocol = this.transport.knownProtocol(audience) ?? (await this.transport.protocolOf(audience, this.timeoutMs));
      if (protocol !== 'h2') return await this.sendHttp1(subscription, endpoint, content, authorization);
      // Our own encryption (web-push-encryption.ts: the same bytes at about two thirds of the CPU).
      const { body } = encryptWebPushMessage(webPushBody(content), keys.p256dh, keys.auth);
      const path = `${endpoint.pathname}${endpoint.search}`;
      const answer = await this.transport.http2At(audience).postRaw(path, webPushHeaderFields(content), authorization, body, this.timeoutMs);
      return outcomeOfAnswer(answerAtHost(answer, endpoint));
    } catch (error) {
      if (!(error instanceof WebPushError) && !keyOnCurve(keys.p256dh)) return { kind: 'invalid', reason: FailureReason.InvalidSubscription };
      return outcomeOf(error, endpoint);
    }
  }

  /** A push service that does not speak HTTP/2: web-push's own request (and its encryption) over keep-alive HTTP/1.1. */
  private async sendHttp1(subscription: WebPushSubscription, endpoint: URL, content: PushContent, authorization: string): Promise<DeliveryOutcome> {
    const options: RequestOptions = {
      // No vapidDetails: VAPID goes as a ready header, else web-push signs an ES256 JWT per message.
      headers: { Authorization: authorization },
      TTL: webPushTtlOf(content),
      urgency: webPushUrgencyOf(content),
      topic: webPushTopicOf(content),
      contentEncoding: 'aes128gcm',
      timeout: this.timeoutMs,
      agent: this.transport.httpsAgent,
    };
    // web-push parses the endpoint again with the legacy URL parser: give it the WHATWG
    // normalisation that was checked, so both parsers see the same host.
    await webpush.sendNotification({ ...subscription, endpoint: endpoint.href }, webPushBody(content), options);
    return { kind: 'accepted' };
  }

  /**
   * `vapid t=<JWT>, k=<public key>` for one push service origin, signed once and reused while it
   * has more than half of its 12 hours left (RFC 8292 allows up to 24 hours).
   */
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

  /**
   * The VAPID key pair and subject (docs/api.md#credentials-check): push services take any pair
   * that signs, so there is no one to ask; the pair must match, the subject be a contact, and a
   * VAPID token be signed with them.
   */
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

  /** Open HTTP/2 connections, over all push services (for tests and diagnostics). */
  get openSessions(): number {
    return this.transport.openSessions;
  }

  onModuleDestroy(): void {
    this.transport.close();
  }
}

type Vapid = NonNullable<ProviderCredentials['vapid']>;
/** Signed VAPID headers of one key pair, by audience. */
type VapidHeaders = Map<string, { header: string; expiresAt: number }>;

/** The subscription's endpoint when it is an https URL, else null. */
function httpsEndpoint(subscription: WebPushSubscription): URL | null {
  try {
    const url = new URL(subscription.endpoint);
    return url.protocol === 'https:' ? url : null;
  } catch {
    return null;
  }
}

/** The decoded keys when p256dh is 65 bytes starting 0x04 (uncompressed point) and auth 16 bytes (RFC 8291 §3), else null. */
function wellFormedKeys(subscription: WebPushSubscription): { p256dh: Buffer; auth: Buffer } | null {
  const p256dh = Buffer.from(subscription.keys?.p256dh ?? '', 'base64url');
  const auth = Buffer.from(subscription.keys?.auth ?? '', 'base64url');
  return p256dh.length === 65 && p256dh[0] === 0x04 && auth.length === 16 ? { p256dh, auth } : null;
}

/**
 * Whether p256dh, already known to be well formed, is a point on P-256: asked only after a
 * failed encryption, since importing the key costs more than a send.
 */
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

/** An HTTP/2 exchange -> outcome, as web-push's HTTP/1.1 path would have ended. */
export function outcomeOfAnswer(answer: Http2Answer): DeliveryOutcome {
  if ('failure' in answer) return transportOutcome(answer.failure);
  if (answer.status >= 200 && answer.status < 300) return { kind: 'accepted' };
  return statusOutcome(answer.status, answer.headers['retry-after']);
}

/** Push service status -> outcome (RFC 8030 §5 and §8.3); anything without a status is transport. */
function outcomeOf(error: unknown, endpoint: URL): DeliveryOutcome {
  if (!(error instanceof WebPushError)) return transportOutcome(atHost(transportReason(error), endpoint));
  return statusOutcome(error.statusCode, error.headers?.['retry-after']);
}

/**
 * A host that resolved to a private address fails for good, without invalidating the
 * installation: DNS (or the operator's list) may be fixed, and nothing is retried meanwhile.
 */
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
