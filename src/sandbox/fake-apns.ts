import { createPublicKey, generateKeyPairSync, randomBytes, randomUUID, type KeyObject } from 'node:crypto';
import { constants as h2, createSecureServer, type IncomingHttpHeaders, type OutgoingHttpHeaders, type ServerHttp2Stream } from 'node:http2';
import { decodeProtectedHeader, jwtVerify } from 'jose';
import {
  ChannelAnswer,
  FakeApnsChannels,
  isBroadcastPath,
  isChannelPath,
  respondToChannelRequest,
  liveActivityProblem,
  LIVE_ACTIVITY_PUSH_TYPE,
} from './apns-live-activity';
import { bundleIdOf, widgetsProblem } from './apns-widgets';
import { FakeTlsServer, headerValue, isPlainObject, plainHeaders, readBody, serverTlsOptions, tryParseJson } from './fake-server';

const MAX_PAYLOAD_BYTES = 4096;
const PROVIDER_TOKEN_MAX_AGE_SECONDS = 60 * 60;
const CLOCK_SKEW_SECONDS = 60;
const MAX_CONCURRENT_STREAMS = 1000;

const PUSH_TYPES = new Set([
  'alert',
  'background',
  'complication',
  'controls',
  'fileprovider',
  'liveactivity',
  'location',
  'mdm',
  'pushtotalk',
  'voip',
  'widgets',
]);
const PRIORITIES = new Set(['1', '5', '10']);
const DEVICE_PATH = /^\/3\/device\/([^/?]*)$/;
const HEX = /^[0-9a-fA-F]+$/;
const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

export interface ApnsKey {
  keyId: string;
  teamId: string;
  /** The `.p8` file's PKCS#8 PEM. */
  privateKeyPem: string;
  publicKey: KeyObject;
}

export interface ApnsStep {
  status: number;
  reason: string;
  retryAfter?: number;
}

export interface ApnsRequestRecord {
  token: string;
  headers: Record<string, string>;
  payload: unknown;
  text: string;
  status: number;
  reason?: string;
  jwt: string;
  apnsId: string;
  /** `apns-unique-id`, which Apple's development environment adds to an accepted push (as this sandbox does). */
  uniqueId?: string;
  at: Date;
}

interface Outcome {
  status: number;
  reason?: string;
  retryAfter?: number;
}

type TokenCheck = { iat: number } | { reason: string };

function appleId(): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
  return Array.from(randomBytes(10), (byte) => alphabet[byte % alphabet.length]).join('');
}

export function generateApnsKey(): ApnsKey {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  return {
    keyId: appleId(),
    teamId: appleId(),
    privateKeyPem: privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
    publicKey,
  };
}

export function randomApnsToken(): string {
  return randomBytes(32).toString('hex');
}

/** Loopback APNs provider API: Apple's checks, statuses and `reason`s, so delivery is tested end to end. */
export class FakeApns extends FakeTlsServer<ApnsStep, ApnsRequestRecord> {
  private readonly keys = new Map<string, { teamId: string; publicKey: KeyObject }>();
  private readonly topics = new Set<string>();
  /** One verification per distinct provider token (a promise, so a burst verifies once): ECDSA per stream would bottleneck. */
  private readonly tokenChecks = new Map<string, Promise<TokenCheck>>();
  private sessionCount = 0;
  readonly liveActivityChannels = new FakeApnsChannels();

  get sessions(): number {
    return this.sessionCount;
  }

  addKey(key: { keyId: string; teamId: string; publicKey: string | KeyObject }): void {
    const publicKey = typeof key.publicKey === 'string' ? createPublicKey(key.publicKey) : key.publicKey;
    this.keys.set(key.keyId, { teamId: key.teamId, publicKey });
    // A key id may be re-registered with another key: earlier verdicts are void.
    this.tokenChecks.clear();
  }

  allowTopic(topic: string): void {
    this.topics.add(topic);
  }

  deliveredCount(token?: string): number {
    return this.requests.filter((r) => r.status === 200 && (token === undefined || r.token === token)).length;
  }

  distinctJwts(): number {
    return new Set(this.requests.map((r) => r.jwt).filter((jwt) => jwt !== '')).size;
  }

  override reset(): void {
    super.reset();
    this.sessionCount = 0;
  }

  protected createServer() {
    const server = createSecureServer({
      ...serverTlsOptions(),
      allowHTTP1: false,
      settings: { maxConcurrentStreams: MAX_CONCURRENT_STREAMS },
      peerMaxConcurrentStreams: MAX_CONCURRENT_STREAMS,
      // Past nghttp2's 10 MB default, 1000 streams of 4 KiB get ENHANCE_YOUR_CALM: the fake must never give up first.
      maxSessionMemory: 64,
    });
    server.on('session', () => this.sessionCount++);
    server.on('stream', (stream, headers) => {
      // A client may reset a stream at any time (timeouts); that is not an error of ours.
      stream.on('error', () => undefined);
      this.handle(stream, headers).catch((error: unknown) => {
        respond(stream, randomUUID(), { status: 500, reason: 'InternalServerError' }, String(error));
      });
    });
    return server;
  }

  private async handle(stream: ServerHttp2Stream, headers: IncomingHttpHeaders): Promise<void> {
    const requestId = headerValue(headers, 'apns-id');
    const apnsId = requestId !== undefined && UUID.test(requestId) ? requestId.toLowerCase() : randomUUID();
    const { body, size } = await readBody(stream, MAX_PAYLOAD_BYTES);
    const token = DEVICE_PATH.exec(headerValue(headers, h2.HTTP2_HEADER_PATH) ?? '')?.[1] ?? '';
    const jwt = /^bearer (.+)$/i.exec(headerValue(headers, 'authorization') ?? '')?.[1].trim() ?? '';
    const payload = tryParseJson(body.toString('utf8'));
    const path = headerValue(headers, h2.HTTP2_HEADER_PATH) ?? '';
    if (isChannelPath(path)) return this.handleChannel(stream, headers, apnsId, jwt, path, body.toString('utf8'), payload);

    const rejection = await this.validate(headers, jwt, token, size, payload);
    const outcome: Outcome = rejection ?? this.nextStep(token) ?? { status: 200 };
    const uniqueId = outcome.status === 200 ? randomUUID() : undefined;

    this.requests.push({
      token,
      headers: plainHeaders(headers),
      payload,
      text: body.toString('utf8'),
      status: outcome.status,
      reason: outcome.reason,
      jwt,
      apnsId,
      uniqueId,
      at: new Date(),
    });
    await this.applyDelay();
    respond(stream, apnsId, outcome, undefined, uniqueId);
  }

  private async handleChannel(
    stream: ServerHttp2Stream,
    headers: IncomingHttpHeaders,
    apnsId: string,
    jwt: string,
    path: string,
    text: string,
    payload: unknown,
  ): Promise<void> {
    const tokenProblem = headers.authorization === undefined ? 'MissingProviderToken' : await this.checkProviderToken(jwt);
    const method = String(headers[h2.HTTP2_HEADER_METHOD]);
    let answer: ChannelAnswer = tokenProblem
      ? { status: 403, body: { reason: tokenProblem } }
      : this.liveActivityChannels.answer(method, path, plainHeaders(headers), text, (bundleId) => this.topics.has(bundleId));
    // A valid broadcast takes the channel's scripted step or behaviour, as a push takes its token's.
    const step = answer.status === 200 && isBroadcastPath(path) ? this.nextStep(headerValue(headers, 'apns-channel-id') ?? '') : undefined;
    if (step)
      answer = {
        status: step.status,
        body: { reason: step.reason },
        headers: step.retryAfter === undefined ? undefined : { 'retry-after': String(step.retryAfter) },
      };
    const reason = typeof answer.body?.reason === 'string' ? answer.body.reason : undefined;
    this.requests.push({
      token: headerValue(headers, 'apns-channel-id') ?? '',
      headers: plainHeaders(headers),
      payload,
      text,
      status: answer.status,
      reason,
      jwt,
      apnsId,
      at: new Date(),
    });
    await this.applyDelay();
    respondToChannelRequest(stream, apnsId, answer);
  }

  private async validate(headers: IncomingHttpHeaders, jwt: string, token: string, size: number, payload: unknown): Promise<Outcome | undefined> {
    if (headers[h2.HTTP2_HEADER_METHOD] !== 'POST') return { status: 405, reason: 'MethodNotAllowed' };
    if (!DEVICE_PATH.test(headerValue(headers, h2.HTTP2_HEADER_PATH) ?? '')) return { status: 404, reason: 'BadPath' };

    if (headers.authorization === undefined) return { status: 403, reason: 'MissingProviderToken' };
    const tokenProblem = await this.checkProviderToken(jwt);
    if (tokenProblem) return { status: 403, reason: tokenProblem };

    const topic = headerValue(headers, 'apns-topic');
    if (topic === undefined) return { status: 400, reason: 'MissingTopic' };
    const bundleId = bundleIdOf(topic, headerValue(headers, 'apns-push-type'));
    if (bundleId === undefined || !this.topics.has(bundleId)) return { status: 400, reason: 'TopicDisallowed' };

    if (!PUSH_TYPES.has(headerValue(headers, 'apns-push-type') ?? '')) return { status: 400, reason: 'InvalidPushType' };
    const priority = headerValue(headers, 'apns-priority');
    if (priority !== undefined && !PRIORITIES.has(priority)) return { status: 400, reason: 'BadPriority' };
    const expiration = headerValue(headers, 'apns-expiration');
    if (expiration !== undefined && !/^\d+$/.test(expiration)) return { status: 400, reason: 'BadExpirationDate' };
    const apnsId = headerValue(headers, 'apns-id');
    if (apnsId !== undefined && !UUID.test(apnsId)) return { status: 400, reason: 'BadMessageId' };
    const collapseId = headerValue(headers, 'apns-collapse-id');
    if (collapseId !== undefined && Buffer.byteLength(collapseId) > 64) return { status: 400, reason: 'BadCollapseId' };

    if (token === '') return { status: 400, reason: 'MissingDeviceToken' };
    if (!HEX.test(token)) return { status: 400, reason: 'BadDeviceToken' };
    // Apple issues random tokens: one of zeros (what credentials:check sends) is no device's.
    if (/^0+$/.test(token)) return { status: 400, reason: 'BadDeviceToken' };

    if (size > MAX_PAYLOAD_BYTES) return { status: 413, reason: 'PayloadTooLarge' };
    if (size === 0) return { status: 400, reason: 'PayloadEmpty' };
    if (!isPlainObject(payload) || !isPlainObject(payload.aps)) return { status: 400, reason: 'BadPayload' };
    return widgetsProblem(headerValue(headers, 'apns-push-type')!, payload) ?? apsProblem(headerValue(headers, 'apns-push-type')!, priority, payload.aps);
  }

  private async checkProviderToken(jwt: string): Promise<string | undefined> {
    if (jwt === '') return 'InvalidProviderToken';
    let check = this.tokenChecks.get(jwt);
    if (!check) {
      check = this.verifyProviderToken(jwt);
      this.tokenChecks.set(jwt, check);
    }
    const result = await check;
    if ('reason' in result) return result.reason;
    // Age is judged on every request: a cached token still expires.
    const age = Math.floor(Date.now() / 1000) - result.iat;
    if (age > PROVIDER_TOKEN_MAX_AGE_SECONDS) return 'ExpiredProviderToken';
    if (age < -CLOCK_SKEW_SECONDS) return 'InvalidProviderToken';
    return undefined;
  }

  private async verifyProviderToken(jwt: string): Promise<TokenCheck> {
    const invalid = { reason: 'InvalidProviderToken' };
    let kid: unknown;
    try {
      ({ kid } = decodeProtectedHeader(jwt));
    } catch {
      return invalid;
    }
    const key = typeof kid === 'string' ? this.keys.get(kid) : undefined;
    if (!key) return invalid;
    try {
      const { payload } = await jwtVerify(jwt, key.publicKey, {
        algorithms: ['ES256'],
        issuer: key.teamId,
        requiredClaims: ['iat'],
      });
      return { iat: payload.iat as number };
    } catch {
      return invalid;
    }
  }
}

const INTERRUPTION_LEVELS = new Set(['passive', 'active', 'time-sensitive', 'critical']);
const APS_STRINGS = ['thread-id', 'category', 'target-content-id', 'interruption-level'];
const ALERT_STRINGS = ['title', 'subtitle', 'body'];

/** What APNs refuses in `aps`: a background push with an alert, sound, badge or priority 10; an alert push without one; wrong types. */
function apsProblem(pushType: string, priority: string | undefined, aps: Record<string, unknown>): Outcome | undefined {
  const bad = { status: 400, reason: 'BadPayload' };
  if (pushType === LIVE_ACTIVITY_PUSH_TYPE) {
    const problem = liveActivityProblem(aps);
    if (problem) return problem;
  }
  if (pushType === 'background') {
    if (priority === '10') return { status: 400, reason: 'BadPriority' };
    if (aps['content-available'] !== 1) return bad;
    if (aps.alert !== undefined || aps.sound !== undefined || aps.badge !== undefined) return bad;
  }
  if (pushType === 'alert' && !isPlainObject(aps.alert) && typeof aps.alert !== 'string') return bad;
  const alert = aps.alert;
  if (isPlainObject(alert) && ALERT_STRINGS.some((key) => alert[key] !== undefined && typeof alert[key] !== 'string')) return bad;
  if (APS_STRINGS.some((key) => aps[key] !== undefined && typeof aps[key] !== 'string')) return bad;
  if (aps['interruption-level'] !== undefined && !INTERRUPTION_LEVELS.has(aps['interruption-level'] as string)) return bad;
  const score = aps['relevance-score'];
  if (score !== undefined && (typeof score !== 'number' || score < 0 || score > 1)) return bad;
  if (aps.badge !== undefined && !(Number.isInteger(aps.badge) && (aps.badge as number) >= 0)) return bad;
  for (const key of ['content-available', 'mutable-content']) if (aps[key] !== undefined && aps[key] !== 1) return bad;
  return undefined;
}

function respond(stream: ServerHttp2Stream, apnsId: string, outcome: Outcome, detail?: string, uniqueId?: string): void {
  if (stream.destroyed || stream.headersSent) return;
  const headers: OutgoingHttpHeaders = { [h2.HTTP2_HEADER_STATUS]: outcome.status, 'apns-id': apnsId };
  if (outcome.status === 200) {
    if (uniqueId !== undefined) headers['apns-unique-id'] = uniqueId;
    stream.respond(headers, { endStream: true });
    return;
  }
  if (outcome.retryAfter !== undefined) headers['retry-after'] = String(outcome.retryAfter);
  headers[h2.HTTP2_HEADER_CONTENT_TYPE] = 'application/json; charset=utf-8';
  const body: Record<string, unknown> = { reason: outcome.reason };
  if (outcome.status === 410) body.timestamp = Date.now();
  if (detail !== undefined) body.detail = detail;
  stream.respond(headers);
  stream.end(JSON.stringify(body));
}
