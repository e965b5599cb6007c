import { Injectable, OnModuleDestroy, Optional } from '@nestjs/common';
import { createPrivateKey, randomUUID } from 'node:crypto';
import { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http2';
import { SignJWT } from 'jose';
import { FailureReason } from '../../common/vocabulary';
import { EnvironmentVariables } from '../../config/env';
import { ProviderCredentials } from '../../credentials/provider-credentials';
import { MetricsService } from '../../metrics/metrics.service';
import { Http2Answer, Http2Pools, Http2SessionPool } from './http2-session-pool';
import { answerAtHost, PROVIDER_TIMEOUT_MS, retryAfterMs, retryOutcome } from './provider-http';
import { liveActivityHeaders, LiveActivityMessage, liveActivityPayload } from './live-activity-payload';
import { apnsBody, apnsHeaderFields, apnsTopicOf, PushContent } from './payloads';
import { CHECK_CONTENT, CredentialCheck, DeliveryOutcome, DeliveryTarget, MADE_UP_TOKEN, PushProvider } from './push-provider';

type ApnsCredentials = NonNullable<ProviderCredentials['apns']>;

interface Route {
  base: URL;
  pool: Http2SessionPool;
  prefix: string;
}

interface PushRoute extends Route {
  devicePath: string;
}

const PRODUCTION_URL = 'https://api.push.apple.com';
const SANDBOX_URL = 'https://api.sandbox.push.apple.com';
const CHANNELS_PRODUCTION_URL = 'https://api-manage-broadcast.push.apple.com:2196';
const CHANNELS_SANDBOX_URL = 'https://api-manage-broadcast.sandbox.push.apple.com:2195';

export type ChannelAnswer = Http2Answer;
/** Apple rejects tokens older than an hour and refuses updates more often than every 20 minutes. */
const PROVIDER_TOKEN_REFRESH_MS = 40 * 60_000;
const APNS_HINTS: Record<string, string> = {
  InvalidProviderToken: 'the key, its key id or the team id is wrong',
  BadTopic: 'the topic is not a bundle id this key may push to',
  TopicDisallowed: 'the topic is not a bundle id this key may push to',
  ExpiredProviderToken: "this machine's clock is off",
  [FailureReason.InvalidProviderKey]: 'the stored .p8 key cannot sign',
};
const INVALID_TOKEN_REASONS = new Set(['BadDeviceToken', 'DeviceTokenNotForTopic']);

interface ProviderToken {
  pem: string;
  issuedAt: number;
  jwt: Promise<string>;
  authorization?: string;
}

/** Per signing key, not per provider (Apple's update limit is the key's); a promise, so a burst signs once. */
const providerTokens = new Map<string, ProviderToken>();

const BEARER = 'bearer ';

const tokenKey = (apns: ApnsCredentials) => `${apns.teamId}.${apns.keyId}`;

function issueProviderToken(apns: ApnsCredentials): ProviderToken {
  const key = tokenKey(apns);
  const issuedAt = Date.now();
  const jwt = new SignJWT({})
    .setProtectedHeader({ alg: 'ES256', kid: apns.keyId })
    .setIssuer(apns.teamId)
    .setIssuedAt(Math.floor(issuedAt / 1000))
    .sign(createPrivateKey(apns.privateKey));
  const entry: ProviderToken = { pem: apns.privateKey, issuedAt, jwt };
  providerTokens.set(key, entry);
  jwt.then(
    (signed) => (entry.authorization = BEARER + signed),
    // A key that cannot sign must not stay cached as a rejected promise.
    () => {
      if (providerTokens.get(key) === entry) providerTokens.delete(key);
    },
  );
  return entry;
}

function currentProviderToken(apns: ApnsCredentials): ProviderToken {
  const entry = providerTokens.get(tokenKey(apns));
  // A changed .p8 under the same key id (an operator fixing a mistake) gets a new token at once.
  if (entry && entry.pem === apns.privateKey && Date.now() - entry.issuedAt < PROVIDER_TOKEN_REFRESH_MS) return entry;
  return issueProviderToken(apns);
}

/** The `authorization` value, now or once signed; null when the key cannot sign (retrying cannot help). */
function authorization(apns: ApnsCredentials): string | Promise<string | null> {
  let entry: ProviderToken;
  try {
    entry = currentProviderToken(apns);
  } catch {
    return Promise.resolve(null);
  }
  return (
    entry.authorization ??
    entry.jwt.then(
      (jwt) => BEARER + jwt,
      () => null,
    )
  );
}

async function renewed(apns: ApnsCredentials, stale: string): Promise<string> {
  return BEARER + (await refreshProviderToken(apns, stale.slice(BEARER.length)));
}

const expiredToken = (answer: Http2Answer) => !('failure' in answer) && answer.status === 403 && reasonOf(answer.body) === 'ExpiredProviderToken';

/** A new token after APNs called `staleJwt` expired, unless a concurrent request already replaced it. */
async function refreshProviderToken(apns: ApnsCredentials, staleJwt: string): Promise<string> {
  const key = tokenKey(apns);
  const entry = providerTokens.get(key);
  const current = entry ? await entry.jwt.catch(() => undefined) : undefined;
  const latest = providerTokens.get(key);
  if (latest && latest !== entry) return latest.jwt;
  if (entry && current !== undefined && current !== staleJwt) return entry.jwt;
  return issueProviderToken(apns).jwt;
}

/** APNs provider API over node:http2 with .p8 token authentication (docs/api.md#delivery). */
@Injectable()
export class ApnsProvider implements PushProvider, OnModuleDestroy {
  readonly platform = 'ios' as const;
  readonly validatesDryRun = false;
  timeoutMs = PROVIDER_TIMEOUT_MS;

  private readonly pools = new Http2Pools();
  private routes = new WeakMap<ApnsCredentials, PushRoute>();

  constructor(
    private readonly config: EnvironmentVariables,
    @Optional() private readonly metrics?: MetricsService,
  ) {}

  configured(credentials: ProviderCredentials): boolean {
    return credentials.apns !== null;
  }

  async send(credentials: ProviderCredentials, content: PushContent, target: DeliveryTarget): Promise<DeliveryOutcome> {
    const apns = credentials.apns;
    if (!apns) return { kind: 'failed', reason: FailureReason.ApnsNotConfigured };
    if (!target.pushToken) return { kind: 'failed', reason: FailureReason.MissingDeviceToken };

    const route = this.route(apns);
    const path = route.devicePath + encodeURIComponent(target.pushToken);
    const fields = apnsHeaderFields(content, apnsTopicOf(content, apns.topic));
    const body = apnsBody(content, target.badge ?? null);
    const value = authorization(apns);
    const bearer = typeof value === 'string' ? value : await value;
    if (bearer === null) return { kind: 'failed', reason: FailureReason.InvalidProviderKey };
    let answer = await route.pool.postRaw(path, fields, bearer, body, this.timeoutMs);
    if (expiredToken(answer)) answer = await route.pool.postRaw(path, fields, await renewed(apns, bearer), body, this.timeoutMs);
    this.metrics?.recordProviderAnswer('apns', 'status' in answer ? answer.status : undefined);
    return outcomeOf(answerAtHost(answer, route.base));
  }

  private route(apns: ApnsCredentials): PushRoute {
    let route = this.routes.get(apns);
    if (route === undefined) {
      const to = this.routeTo(apns, this.pushBase(apns));
      route = { ...to, devicePath: `${to.prefix}/3/device/` };
      this.routes.set(apns, route);
    }
    return route;
  }

  private routeTo(apns: ApnsCredentials, base: URL): Route {
    // Apple treats a connection per request as abuse and counts token changes per connection: a pool per key.
    const pool = this.pools.get(`${base.origin} ${tokenKey(apns)}`, base.origin);
    return { base, pool, prefix: base.pathname.replace(/\/+$/, '') };
  }

  /** A push to a token no device has (docs/api.md#credentials-check): Apple checks key and topic first, so BadDeviceToken proves them. */
  async check(credentials: ProviderCredentials): Promise<CredentialCheck> {
    const apns = credentials.apns!;
    const host = this.pushBase(apns).hostname;
    const content: PushContent = { id: randomUUID(), ...CHECK_CONTENT, options: null };
    const outcome = await this.send(credentials, content, { installationId: 'credentials-check', pushToken: MADE_UP_TOKEN, webPushSubscription: null });
    const what = `key ${apns.keyId} of team ${apns.teamId} for topic ${apns.topic} at ${host}`;
    if (outcome.kind === 'accepted' || outcome.kind === 'invalid') {
      return { ok: true, detail: `${what}: accepted (${outcome.kind === 'accepted' ? 'the push was accepted' : outcome.reason} for a token no device has)` };
    }
    return { ok: false, detail: `${what}: ${outcome.reason}${APNS_HINTS[outcome.reason] ? ` (${APNS_HINTS[outcome.reason]})` : ''}` };
  }

  /** To the activity's update token (docs/api.md#live-activities). */
  async sendLiveActivity(credentials: ProviderCredentials, pushToken: string, message: LiveActivityMessage): Promise<DeliveryOutcome> {
    const apns = credentials.apns;
    if (!apns) return { kind: 'failed', reason: FailureReason.ApnsNotConfigured };
    return this.post(apns, pushToken, liveActivityHeaders(message, apns.topic), JSON.stringify(liveActivityPayload(message)));
  }

  /** To a broadcast channel (docs/api.md#live-activity-channels); the bundle id is in the path. */
  async broadcast(credentials: ProviderCredentials, channelId: string, message: LiveActivityMessage): Promise<DeliveryOutcome> {
    const apns = credentials.apns;
    if (!apns) return { kind: 'failed', reason: FailureReason.ApnsNotConfigured };
    const { 'apns-push-type': pushType, 'apns-priority': priority } = liveActivityHeaders(message, apns.topic);
    const headers = { 'apns-push-type': pushType, 'apns-priority': priority, 'apns-channel-id': channelId };
    const route = this.route(apns);
    const path = `${route.prefix}/4/broadcasts/apps/${encodeURIComponent(apns.topic)}`;
    const answer = await this.exchange(apns, route, path, headers, JSON.stringify(liveActivityPayload(message)));
    return 'reason' in answer ? { kind: 'failed', reason: answer.reason } : outcomeOf(answer);
  }

  /** One request to APNs' channel management API (`/1/apps/<bundle id>/<resource>`). */
  async channelRequest(
    credentials: ProviderCredentials,
    method: 'POST' | 'GET' | 'DELETE',
    resource: 'channels' | 'all-channels',
    headers: Record<string, string> = {},
    body = '',
  ): Promise<ChannelAnswer | { reason: string }> {
    const apns = credentials.apns;
    if (!apns) return { reason: FailureReason.ApnsNotConfigured };
    const route = this.routeTo(apns, new URL(this.config.APNS_CHANNELS_URL ?? (apns.production ? CHANNELS_PRODUCTION_URL : CHANNELS_SANDBOX_URL)));
    const path = `${route.prefix}/1/apps/${encodeURIComponent(apns.topic)}/${resource}`;
    return this.exchange(apns, route, path, { ...headers, ':method': method }, body);
  }

  private pushBase(apns: ApnsCredentials): URL {
    return new URL(this.config.APNS_URL ?? (apns.production ? PRODUCTION_URL : SANDBOX_URL));
  }

  private async post(apns: ApnsCredentials, pushToken: string, headers: OutgoingHttpHeaders, body: string): Promise<DeliveryOutcome> {
    const route = this.route(apns);
    const answer = await this.exchange(apns, route, route.devicePath + encodeURIComponent(pushToken), headers, body);
    return 'reason' in answer ? { kind: 'failed', reason: answer.reason } : outcomeOf(answer);
  }

  /** One request with the provider token, renewed once when APNs calls it expired. */
  private async exchange(
    apns: ApnsCredentials,
    route: Route,
    path: string,
    headers: OutgoingHttpHeaders,
    body: string,
  ): Promise<Http2Answer | { reason: string }> {
    const bearer = await authorization(apns);
    if (bearer === null) return { reason: FailureReason.InvalidProviderKey };
    let answer = await route.pool.post(path, { ...headers, authorization: bearer }, body, this.timeoutMs);
    if (expiredToken(answer)) answer = await route.pool.post(path, { ...headers, authorization: await renewed(apns, bearer) }, body, this.timeoutMs);
    this.metrics?.recordProviderAnswer('apns', 'status' in answer ? answer.status : undefined);
    return answerAtHost(answer, route.base);
  }

  get openSessions(): number {
    return this.pools.openSessions;
  }

  close(): void {
    this.pools.close();
    this.routes = new WeakMap();
  }

  onModuleDestroy(): void {
    this.close();
  }
}

export function reasonOf(body: string): string | undefined {
  try {
    const parsed = JSON.parse(body) as { reason?: unknown };
    return typeof parsed.reason === 'string' ? parsed.reason : undefined;
  } catch {
    return undefined;
  }
}

/** `apns-id`, then Apple's `apns-unique-id` (development only) after a space (docs/api.md#provider-message-ids). */
export function apnsMessageId(headers: IncomingHttpHeaders): string | undefined {
  const id = headerText(headers['apns-id']);
  const unique = headerText(headers['apns-unique-id']);
  if (id === undefined) return unique;
  return unique === undefined ? id : `${id} ${unique}`;
}

const headerText = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value) || undefined;

function accepted(headers: IncomingHttpHeaders): DeliveryOutcome {
  const providerMessageId = apnsMessageId(headers);
  return providerMessageId === undefined ? { kind: 'accepted' } : { kind: 'accepted', providerMessageId };
}

/** APNs status + reason -> outcome (Apple's "Handling notification responses from APNs"). */
export function outcomeOf(answer: Http2Answer): DeliveryOutcome {
  if ('failure' in answer) return retryOutcome(answer.failure);
  const { status } = answer;
  if (status === 200) return accepted(answer.headers);
  const reason = reasonOf(answer.body) ?? `HTTP ${status}`;
  if (status === 410) return { kind: 'invalid', reason };
  if (status === 400 && INVALID_TOKEN_REASONS.has(reason)) return { kind: 'invalid', reason };
  if (status === 429 || status >= 500) return retryOutcome(reason, retryAfterMs(answer.headers['retry-after']));
  // A fresh token still called expired: a clock problem, worth another try later.
  if (status === 403 && reason === 'ExpiredProviderToken') return retryOutcome(reason);
  return { kind: 'failed', reason };
}
