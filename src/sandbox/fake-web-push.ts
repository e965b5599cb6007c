import { createECDH, createPublicKey, randomBytes, type ECDH, type KeyObject } from 'node:crypto';
import { STATUS_CODES, type IncomingMessage, type OutgoingHttpHeaders, type ServerResponse } from 'node:http';
import { createSecureServer, type Http2ServerRequest, type Http2ServerResponse } from 'node:http2';
import { createServer } from 'node:https';
import * as ece from 'http_ece';
import { jwtVerify } from 'jose';
import { FakeTlsServer, headerValue, plainHeaders, readBody, serverTlsOptions, tryParseJson } from './fake-server';

/** RFC 8030 lets push services cap message size; 4096 bytes is what browsers' services accept. */
const MAX_BODY_BYTES = 4096;
/** RFC 8292 §2: a VAPID token must not expire more than 24 hours ahead. */
const MAX_VAPID_LIFETIME_SECONDS = 24 * 60 * 60;
const CLOCK_SKEW_SECONDS = 60;
const PUSH_PATH = /^\/push\/([A-Za-z0-9_-]+)$/;
const URGENCIES = new Set(['very-low', 'low', 'normal', 'high']);
/** RFC 8030 §5.4: at most 32 characters of the URL and filename safe base64 alphabet. */
const TOPIC = /^[A-Za-z0-9_-]{1,32}$/;

type Request = IncomingMessage | Http2ServerRequest;
type Response = ServerResponse | Http2ServerResponse;
/** What both response kinds share; @types/node 24 types their writeHead overloads as incompatible. */
type HeadWriter = { writeHead(status: number, headers: OutgoingHttpHeaders): unknown };

/** Same shape as a browser's `PushSubscription.toJSON()`. */
export interface WebPushSubscription {
  endpoint: string;
  expirationTime: number | null;
  keys: { p256dh: string; auth: string };
}

/** A scripted answer; `retryAfter` (seconds) becomes a `retry-after` header. */
export interface WebPushStep {
  status: number;
  retryAfter?: number;
}

export interface WebPushRequestRecord {
  id: string;
  endpoint: string;
  /** '2.0' for HTTP/2, '1.1' for HTTP/1.1. */
  httpVersion: string;
  headers: Record<string, string>;
  /**
   * Decrypted body parsed as JSON; undefined when absent, undecryptable or not JSON. With
   * `decrypt: 'on-read'` it is decrypted when first read.
   */
  payload: unknown;
  /** Decrypted body as text, undefined when it could not be decrypted (decrypted when first read, as `payload`). */
  text?: string;
  status: number;
  vapidSub?: string;
  /** `k` of the VAPID header (base64url uncompressed P-256 point). */
  vapidPublicKey?: string;
  at: Date;
}

interface Subscription {
  id: string;
  endpoint: string;
  /** The user agent's ECDH key pair; http_ece needs the ECDH object itself. */
  ecdh: ECDH;
  authSecret: Buffer;
  /** Like `pushManager.subscribe({ applicationServerKey })`: only this VAPID key may push. */
  applicationServerKey?: string;
  /** Set by unsubscribe(): the service answers 410 from then on. */
  gone: boolean;
}

interface Outcome {
  status: number;
  message?: string;
  retryAfter?: number;
}

interface Vapid {
  sub: string;
  publicKey: string;
}

/**
 * Loopback Web Push service (RFC 8030) that authenticates VAPID (RFC 8292)
 * and decrypts aes128gcm payloads (RFC 8291) with the subscriber's keys,
 * so tests can assert exactly what a browser would have received.
 *
 * `decrypt`: `every` (the default) decrypts each message as it arrives and refuses (400) one the
 * browser could not read, so a test learns of a bad encryption at once. `on-read` decrypts a
 * record's `text` and `payload` when they are first read, and accepts what it cannot read, as a
 * real push service does (it never holds the keys): the bench uses it, because decrypting every
 * message of a campaign costs this process about a third of a core (bench/README.md).
 */
export class FakeWebPush extends FakeTlsServer<WebPushStep, WebPushRequestRecord> {
  /**
   * `http2: false` makes a push service that speaks only HTTP/1.1 (it refuses ALPN h2), as some
   * do; by default it negotiates HTTP/2 and still accepts HTTP/1.1, like FCM's and Mozilla's.
   */
  constructor(private readonly options: { http2?: boolean; decrypt?: 'every' | 'on-read' } = {}) {
    super();
  }

  /**
   * Endpoints name `localhost`, as a push service names itself: the service refuses IP literals
   * and trusts localhost only because the tests list it in WEB_PUSH_ALLOWED_HOSTS.
   */
  protected override readonly urlHost = 'localhost';

  private readonly subscriptions = new Map<string, Subscription>();
  private expectedVapidKey?: string;
  /**
   * Signatures already verified, by exact header and audience: senders reuse one VAPID token for
   * hours, and checking the same signature again would only burn the CPU the sender under test
   * shares with this fake. Expiry is still checked on every request.
   */
  private readonly verifiedVapid = new Map<string, Vapid & { exp: number }>();
  /** The clock VAPID expiry is checked against (ms since the epoch): a test moves it rather than waiting. */
  now: () => number = Date.now;

  /** Creates a subscription the way a browser would; keep it to send to. */
  createSubscription(options: { applicationServerKey?: string } = {}): WebPushSubscription {
    const ecdh = createECDH('prime256v1');
    ecdh.generateKeys();
    const authSecret = randomBytes(16);
    const id = randomBytes(16).toString('base64url');
    const endpoint = `${this.baseUrl}/push/${id}`;
    this.subscriptions.set(id, {
      id,
      endpoint,
      ecdh,
      authSecret,
      applicationServerKey: options.applicationServerKey,
      gone: false,
    });
    return {
      endpoint,
      expirationTime: null,
      keys: { p256dh: ecdh.getPublicKey().toString('base64url'), auth: authSecret.toString('base64url') },
    };
  }

  /** The user unsubscribed (or the browser dropped the subscription): answer 410 Gone for good. */
  unsubscribe(endpointOrId: string): void {
    const subscription = this.subscriptions.get(this.scriptKey(endpointOrId));
    if (subscription) subscription.gone = true;
  }

  /** Rejects (403) any VAPID key other than `publicKey` (base64url), for every subscription. */
  expectVapidPublicKey(publicKey: string | undefined): void {
    this.expectedVapidKey = publicKey;
  }

  /** Requests to one subscription (to any, when omitted) that were answered 201. */
  deliveredCount(endpointOrId?: string): number {
    const id = endpointOrId === undefined ? undefined : this.scriptKey(endpointOrId);
    return this.requests.filter((r) => r.status === 201 && (id === undefined || r.id === id)).length;
  }

  protected override scriptKey(endpointOrId: string): string {
    // Scripts are keyed by subscription id; accept the endpoint URL too.
    return endpointOrId.slice(endpointOrId.lastIndexOf('/') + 1);
  }

  protected createServer() {
    const handler = (req: Request, res: Response) => {
      this.handle(req, res).catch((error: unknown) => {
        if (!res.headersSent) respond(res, { status: 500, message: String(error) });
      });
    };
    return this.options.http2 === false ? createServer(serverTlsOptions(), handler) : createSecureServer({ ...serverTlsOptions(), allowHTTP1: true }, handler);
  }

  private async handle(req: Request, res: Response): Promise<void> {
    const { body, size } = await readBody(req, MAX_BODY_BYTES);
    const id = PUSH_PATH.exec((req.url ?? '').split('?')[0])?.[1] ?? '';
    const subscription = this.subscriptions.get(id);
    const record: WebPushRequestRecord = {
      id,
      endpoint: subscription?.endpoint ?? `${this.baseUrl}${req.url ?? ''}`,
      httpVersion: req.httpVersion,
      headers: plainHeaders(req.headers),
      payload: undefined,
      status: 0,
      at: new Date(),
    };

    const outcome = await this.evaluate(req, subscription, body, size, record);
    record.status = outcome.status;
    this.requests.push(record);
    await this.applyDelay();

    if (outcome.status !== 201) {
      respond(res, outcome);
      return;
    }
    // RFC 8030 §5: 201 with the push message resource, echoing the TTL kept.
    respond(res, outcome, {
      location: `${this.baseUrl}/message/${randomBytes(16).toString('base64url')}`,
      ttl: headerValue(req.headers, 'ttl') ?? '',
    });
  }

  /** Checks in the order a push service can perform them; fills `record` as it learns things. */
  private async evaluate(req: Request, subscription: Subscription | undefined, body: Buffer, size: number, record: WebPushRequestRecord): Promise<Outcome> {
    if (req.method !== 'POST') return { status: 405 };
    if (!subscription) return { status: 404, message: 'Subscription not found' };
    if (subscription.gone) return { status: 410, message: 'Subscription has been unsubscribed' };

    // Checked before VAPID so a client on the legacy "aesgcm" scheme (which
    // also uses another Authorization scheme) is told what is actually wrong.
    // A push without payload is legal (RFC 8030 §5); only a body needs an encoding.
    if (size > 0 && headerValue(req.headers, 'content-encoding') !== 'aes128gcm') {
      return { status: 415, message: 'Content-Encoding must be aes128gcm' };
    }
    if (size > MAX_BODY_BYTES) return { status: 413, message: `Payload larger than ${MAX_BODY_BYTES} bytes` };

    const vapid = await this.verifyVapid(req.headers.authorization, new URL(subscription.endpoint).origin);
    if ('status' in vapid) return vapid;
    record.vapidSub = vapid.sub;
    record.vapidPublicKey = vapid.publicKey;
    const allowedKey = subscription.applicationServerKey ?? this.expectedVapidKey;
    if (allowedKey !== undefined && vapid.publicKey !== allowedKey) {
      return { status: 403, message: 'VAPID key does not match the subscription' };
    }

    if (!/^\d+$/.test(headerValue(req.headers, 'ttl') ?? '')) return { status: 400, message: 'Missing or invalid TTL header' };
    const urgency = headerValue(req.headers, 'urgency');
    if (urgency !== undefined && !URGENCIES.has(urgency)) return { status: 400, message: 'Invalid Urgency header' };
    const topic = headerValue(req.headers, 'topic');
    if (topic !== undefined && !TOPIC.test(topic)) return { status: 400, message: 'Invalid Topic header' };

    if (size > 0 && this.options.decrypt === 'on-read') {
      decryptOnRead(record, () => decrypted(body, subscription));
    } else if (size > 0) {
      record.text = decrypted(body, subscription);
      if (record.text === undefined) return { status: 400, message: 'Payload could not be decrypted' };
      record.payload = tryParseJson(record.text);
    }
    return this.nextStep(subscription.id) ?? { status: 201 };
  }

  /** RFC 8292 `Authorization: vapid t=<JWT>, k=<key>`; 401 when absent or not valid. */
  private async verifyVapid(header: string | undefined, audience: string): Promise<Vapid | Outcome> {
    const cacheKey = `${audience} ${header}`;
    const known = this.verifiedVapid.get(cacheKey);
    if (known && known.exp > this.now() / 1000) return { sub: known.sub, publicKey: known.publicKey };
    const result = await this.verifyVapidSignature(header, audience);
    if ('exp' in result) {
      if (this.verifiedVapid.size >= 1000) this.verifiedVapid.clear();
      this.verifiedVapid.set(cacheKey, result);
      return { sub: result.sub, publicKey: result.publicKey };
    }
    return result;
  }

  private async verifyVapidSignature(header: string | undefined, audience: string): Promise<(Vapid & { exp: number }) | Outcome> {
    const unauthorized = (message: string): Outcome => ({ status: 401, message });
    const params = /^vapid\s+(.+)$/i.exec(header ?? '')?.[1];
    if (params === undefined) return unauthorized('Missing VAPID authorization');
    const fields = new Map(
      params.split(',').map((part) => {
        const [name, ...value] = part.trim().split('=');
        return [name.toLowerCase(), value.join('=')] as const;
      }),
    );
    const jwt = fields.get('t');
    const k = fields.get('k');
    if (!jwt || !k) return unauthorized('VAPID header needs t and k');

    const publicKey = vapidKeyObject(k);
    if (!publicKey) return unauthorized('k is not an uncompressed P-256 public key');
    let claims: Record<string, unknown>;
    try {
      ({ payload: claims } = await jwtVerify(jwt, publicKey, {
        algorithms: ['ES256'],
        audience,
        requiredClaims: ['exp', 'sub'],
        currentDate: new Date(this.now()),
      }));
    } catch (error) {
      return unauthorized(`Invalid VAPID token: ${(error as Error).message}`);
    }
    if ((claims.exp as number) > this.now() / 1000 + MAX_VAPID_LIFETIME_SECONDS + CLOCK_SKEW_SECONDS) {
      return unauthorized('VAPID token expires more than 24 hours ahead');
    }
    const sub = claims.sub;
    if (typeof sub !== 'string' || !/^(mailto|https):/.test(sub)) {
      return unauthorized('VAPID sub must be a mailto: or https: URI');
    }
    return { sub, publicKey: k, exp: claims.exp as number };
  }
}

/** Imports a base64url uncompressed P-256 point (0x04 || X || Y), or undefined if it is not one. */
function vapidKeyObject(k: string): KeyObject | undefined {
  const point = Buffer.from(k, 'base64url');
  if (point.length !== 65 || point[0] !== 0x04) return undefined;
  try {
    return createPublicKey({
      format: 'jwk',
      key: {
        kty: 'EC',
        crv: 'P-256',
        x: point.subarray(1, 33).toString('base64url'),
        y: point.subarray(33).toString('base64url'),
      },
    });
  } catch {
    return undefined; // not a point on the curve
  }
}

/** Answers like autopush (Mozilla): JSON `{code, error, message}` for failures, empty 201 otherwise. */
function respond(res: Response, outcome: Outcome, headers: OutgoingHttpHeaders = {}): void {
  if (outcome.retryAfter !== undefined) headers['retry-after'] = String(outcome.retryAfter);
  if (outcome.status === 201) {
    (res as HeadWriter).writeHead(201, { ...headers, 'content-length': 0 });
    res.end();
    return;
  }
  const text = JSON.stringify({
    code: outcome.status,
    error: STATUS_CODES[outcome.status] ?? 'Error',
    message: outcome.message ?? STATUS_CODES[outcome.status] ?? 'Error',
  });
  (res as HeadWriter).writeHead(outcome.status, {
    ...headers,
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}

/** The body as the subscriber's browser reads it (RFC 8291), undefined when it cannot. */
function decrypted(body: Buffer, subscription: Subscription): string | undefined {
  try {
    return ece.decrypt(body, { version: 'aes128gcm', privateKey: subscription.ecdh, authSecret: subscription.authSecret }).toString('utf8');
  } catch {
    return undefined;
  }
}

/** Makes `text` and `payload` decrypt once, when first read. */
function decryptOnRead(record: WebPushRequestRecord, decrypt: () => string | undefined): void {
  let read: { text: string | undefined; payload: unknown } | undefined;
  const once = () => {
    if (read === undefined) {
      const text = decrypt();
      read = { text, payload: text === undefined ? undefined : tryParseJson(text) };
    }
    return read;
  };
  Object.defineProperties(record, {
    text: { get: () => once().text, enumerable: true, configurable: true },
    payload: { get: () => once().payload, enumerable: true, configurable: true },
  });
}
