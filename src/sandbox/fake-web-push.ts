import { createECDH, createPublicKey, randomBytes, type ECDH, type KeyObject } from 'node:crypto';
import { STATUS_CODES, type IncomingMessage, type OutgoingHttpHeaders, type ServerResponse } from 'node:http';
import { createSecureServer, type Http2ServerRequest, type Http2ServerResponse } from 'node:http2';
import { createServer } from 'node:https';
import * as ece from 'http_ece';
import { jwtVerify } from 'jose';
import { FakeTlsServer, headerValue, plainHeaders, readBody, serverTlsOptions, tryParseJson } from './fake-server';

/** RFC 8030 lets push services cap message size; 4096 bytes is what browsers' services accept. */
const MAX_BODY_BYTES = 4096;
const MAX_VAPID_LIFETIME_SECONDS = 24 * 60 * 60;
const CLOCK_SKEW_SECONDS = 60;
const PUSH_PATH = /^\/(?:push|up)\/([A-Za-z0-9_-]+)$/;
/** What a UnifiedPush endpoint answers to GET (UnifiedPush server spec): how an application server tells one. */
export const UNIFIEDPUSH_DISCOVERY = { unifiedpush: { version: 1 } } as const;
const URGENCIES = new Set(['very-low', 'low', 'normal', 'high']);
const TOPIC = /^[A-Za-z0-9_-]{1,32}$/;

type Request = IncomingMessage | Http2ServerRequest;
type Response = ServerResponse | Http2ServerResponse;
/** What both response kinds share; @types/node 24 types their writeHead overloads as incompatible. */
type HeadWriter = { writeHead(status: number, headers: OutgoingHttpHeaders): unknown };

export interface WebPushSubscription {
  endpoint: string;
  expirationTime: number | null;
  keys: { p256dh: string; auth: string };
}

export interface WebPushStep {
  status: number;
  retryAfter?: number;
}

export interface WebPushRequestRecord {
  id: string;
  endpoint: string;
  httpVersion: string;
  headers: Record<string, string>;
  /** Decrypted body as JSON, undefined when absent or unreadable; with `decrypt: 'on-read'`, decrypted on first read. */
  payload: unknown;
  /** Sent to a UnifiedPush endpoint (createSubscription with `unifiedPush`): an Android app's distributor, not a browser. */
  unifiedPush: boolean;
  text?: string;
  status: number;
  vapidSub?: string;
  vapidPublicKey?: string;
  /** The `Location` of the message resource the 201 named. */
  location?: string;
  at: Date;
}

interface Subscription {
  id: string;
  endpoint: string;
  ecdh: ECDH;
  authSecret: Buffer;
  applicationServerKey?: string;
  unifiedPush: boolean;
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
 * Loopback Web Push service (RFC 8030): checks VAPID, decrypts aes128gcm with the subscriber's keys.
 * `decrypt: 'every'` refuses (400) what a browser could not read; `on-read` accepts it, as a real service does (for the bench).
 */
export class FakeWebPush extends FakeTlsServer<WebPushStep, WebPushRequestRecord> {
  /** `http2: false`: HTTP/1.1 only; by default it negotiates HTTP/2 and still accepts HTTP/1.1. */
  constructor(private readonly options: { http2?: boolean; decrypt?: 'every' | 'on-read' } = {}) {
    super();
  }

  /** Named, as a push service is: the service refuses IP literals (tests list localhost in WEB_PUSH_ALLOWED_HOSTS). */
  protected override readonly urlHost = 'localhost';

  private readonly subscriptions = new Map<string, Subscription>();
  private expectedVapidKey?: string;
  /** Verified signatures, by header and audience, so the sender's shared CPU is not burnt; expiry checked each time. */
  private readonly verifiedVapid = new Map<string, Vapid & { exp: number }>();
  now: () => number = Date.now;

  /**
   * A browser's subscription, or with `unifiedPush` an endpoint as a UnifiedPush distributor hands an
   * Android app (`/up/<id>`, RFC 8030 + 8291 + 8292 all the same): what it accepts it decrypts, as the app would.
   */
  createSubscription(options: { applicationServerKey?: string; unifiedPush?: boolean } = {}): WebPushSubscription {
    const ecdh = createECDH('prime256v1');
    ecdh.generateKeys();
    const authSecret = randomBytes(16);
    const id = randomBytes(16).toString('base64url');
    const unifiedPush = options.unifiedPush === true;
    const endpoint = `${this.baseUrl}/${unifiedPush ? 'up' : 'push'}/${id}`;
    this.subscriptions.set(id, {
      id,
      endpoint,
      ecdh,
      authSecret,
      applicationServerKey: options.applicationServerKey,
      unifiedPush,
      gone: false,
    });
    return {
      endpoint,
      expirationTime: null,
      keys: { p256dh: ecdh.getPublicKey().toString('base64url'), auth: authSecret.toString('base64url') },
    };
  }

  unsubscribe(endpointOrId: string): void {
    const subscription = this.subscriptions.get(this.scriptKey(endpointOrId));
    if (subscription) subscription.gone = true;
  }

  expectVapidPublicKey(publicKey: string | undefined): void {
    this.expectedVapidKey = publicKey;
  }

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
    const path = (req.url ?? '').split('?')[0];
    const id = PUSH_PATH.exec(path)?.[1] ?? '';
    const subscription = this.subscriptions.get(id);
    // A UnifiedPush endpoint says what it is to GET; nothing is recorded.
    if (req.method === 'GET' && subscription?.unifiedPush && !subscription.gone && path.startsWith('/up/')) {
      const text = JSON.stringify(UNIFIEDPUSH_DISCOVERY);
      (res as HeadWriter).writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
      res.end(text);
      return;
    }
    const record: WebPushRequestRecord = {
      id,
      endpoint: subscription?.endpoint ?? `${this.baseUrl}${req.url ?? ''}`,
      httpVersion: req.httpVersion,
      headers: plainHeaders(req.headers),
      payload: undefined,
      unifiedPush: subscription?.unifiedPush ?? path.startsWith('/up/'),
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
    record.location = `${this.baseUrl}/message/${randomBytes(16).toString('base64url')}`;
    respond(res, outcome, {
      location: record.location,
      ttl: headerValue(req.headers, 'ttl') ?? '',
    });
  }

  private async evaluate(req: Request, subscription: Subscription | undefined, body: Buffer, size: number, record: WebPushRequestRecord): Promise<Outcome> {
    if (req.method !== 'POST') return { status: 405 };
    // An endpoint answers only on its own path: a browser's is not a distributor's.
    if (!subscription || subscription.unifiedPush !== (req.url ?? '').startsWith('/up/')) return { status: 404, message: 'Subscription not found' };
    if (subscription.gone) return { status: 410, message: 'Subscription has been unsubscribed' };

    // Encoding before VAPID, so a legacy "aesgcm" client is told what is wrong; an empty push needs none.
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

function decrypted(body: Buffer, subscription: Subscription): string | undefined {
  try {
    return ece.decrypt(body, { version: 'aes128gcm', privateKey: subscription.ecdh, authSecret: subscription.authSecret }).toString('utf8');
  } catch {
    return undefined;
  }
}

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
