import { randomBytes } from 'node:crypto';
import { createServer as createHttpServer, type IncomingMessage, type OutgoingHttpHeaders, type ServerResponse } from 'node:http';
import { createSecureServer, type Http2ServerRequest, type Http2ServerResponse } from 'node:http2';
import { createServer as createHttpsServer } from 'node:https';
import { FakeTlsServer, isPlainObject, plainHeaders, readBody, serverTlsOptions, tryParseJson } from './fake-server';

type Request = IncomingMessage | Http2ServerRequest;
type Response = ServerResponse | Http2ServerResponse;
type HeadWriter = { writeHead(status: number, headers: OutgoingHttpHeaders): unknown };

/**
 * Huawei Push Kit as HMS Core documents it ("Sending Downlink Messages", "Result Codes"; OAuth 2.0
 * "Client Credentials"): the token endpoint and `POST /v1/{appid}/messages:send`.
 */
export const HMS_TOKEN_PATH = '/oauth2/v3/token';
const SEND_PATH = /^\/v1\/([^/]+)\/messages:send$/;
const MAX_BODY_BYTES = 1024 * 1024;
/** The message body but its tokens. */
const MAX_MESSAGE_BYTES = 4096;
const MAX_TOKENS = 1000;
const MAX_TTL_SECONDS = 1_296_000;
const REQUEST_FIELDS = new Set(['validate_only', 'message']);
const MESSAGE_FIELDS = new Set(['data', 'notification', 'android', 'apns', 'webpush', 'token', 'topic', 'condition']);
const NOTIFICATION_FIELDS = new Set(['title', 'body', 'image']);
const ANDROID_FIELDS = new Set(['collapse_key', 'urgency', 'category', 'ttl', 'bi_tag', 'receipt_id', 'fast_app_target', 'data', 'notification']);
const ANDROID_NOTIFICATION_STRINGS = new Set([
  'title',
  'body',
  'icon',
  'color',
  'sound',
  'tag',
  'body_loc_key',
  'title_loc_key',
  'channel_id',
  'notify_summary',
  'image',
  'big_title',
  'big_body',
  'group',
  'ticker',
  'when',
  'importance',
  'visibility',
]);
const ANDROID_NOTIFICATION_OTHERS = new Set([
  'click_action',
  'body_loc_args',
  'title_loc_args',
  'multi_lang_key',
  'default_sound',
  'style',
  'auto_clear',
  'notify_id',
  'badge',
  'auto_cancel',
  'use_default_vibrate',
  'use_default_light',
  'vibrate_config',
  'light_settings',
  'foreground_show',
  'inbox_content',
  'buttons',
  'profile_id',
]);
const VISIBILITIES = new Set(['VISIBILITY_UNSPECIFIED', 'PRIVATE', 'PUBLIC', 'SECRET']);
const IMPORTANCES = new Set(['LOW', 'NORMAL', 'HIGH']);
/** Zeros (what `credentials:check` sends), or any space, are never a token Huawei issued. */
const MADE_UP_TOKEN = /^0+$|\s/;

export const HMS_CODES = {
  success: '80000000',
  partial: '80100000',
  badParameter: '80100001',
  badMessage: '80100003',
  badCollapseKey: '80100013',
  authError: '80200001',
  tokenExpired: '80200003',
  allTokensInvalid: '80300007',
  tooLarge: '80300008',
  tokenCount: '80300010',
  internal: '81000001',
} as const;

/** An OAuth 2.0 client of an AppGallery Connect project, and the app it may send for. */
export interface HmsClient {
  app_id: string;
  client_id: string;
  client_secret: string;
}

export function newHmsClient(): HmsClient {
  const id = String(100_000_000 + (randomBytes(4).readUInt32BE() % 900_000_000));
  return { app_id: id, client_id: id, client_secret: randomBytes(32).toString('hex') };
}

/** A token's scripted answer: `80300007` makes just that token illegal; any other, the whole request. */
export interface HmsStep {
  status: number;
  code: string;
  msg?: string;
  retryAfter?: number;
}

export interface HmsRequestRecord {
  appId: string;
  tokens: string[];
  headers: Record<string, string>;
  message: unknown;
  validateOnly: boolean;
  httpVersion: string;
  status: number;
  code: string;
  illegal: string[];
  requestId: string;
  at: Date;
}

export interface HmsTokenRequestRecord {
  clientId: string | null;
  grantType: string | null;
  status: number;
  at: Date;
}

class HmsRejection extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** Loopback Huawei OAuth token endpoint and Push Kit `messages:send` on one origin; HTTP/2 with HTTP/1.1 accepted. */
export class FakeHms extends FakeTlsServer<HmsStep, HmsRequestRecord> {
  constructor(private readonly options: { http2?: boolean; tls?: boolean } = {}) {
    super();
    this.scheme = options.tls === false ? 'http' : 'https';
  }

  protected override readonly scheme: 'https' | 'http';

  readonly tokenRequests: HmsTokenRequestRecord[] = [];
  accessTokenTtlSeconds = 3600;

  private readonly clients = new Map<string, HmsClient>();
  private readonly accessTokens = new Map<string, { client: HmsClient; expiresAt: number }>();

  get tokenUrl(): string {
    return `${this.baseUrl}${HMS_TOKEN_PATH}`;
  }

  createClient(): HmsClient {
    const client = newHmsClient();
    this.addClient(client);
    return client;
  }

  addClient(client: HmsClient): void {
    this.clients.set(client.client_id, client);
  }

  /** Ends every access token issued so far, as an hour passing would. */
  expireAccessTokens(): void {
    for (const grant of this.accessTokens.values()) grant.expiresAt = 0;
  }

  deliveredCount(token?: string): number {
    return this.requests
      .filter((r) => !r.validateOnly && (r.code === HMS_CODES.success || r.code === HMS_CODES.partial))
      .reduce((sum, r) => sum + r.tokens.filter((t) => !r.illegal.includes(t) && (token === undefined || t === token)).length, 0);
  }

  override reset(): void {
    super.reset();
    this.tokenRequests.length = 0;
  }

  protected createServer() {
    const handler = (req: Request, res: Response) => {
      this.route(req, res).catch((error: unknown) => {
        if (!res.headersSent) sendJson(res, 500, { code: HMS_CODES.internal, msg: String(error), requestId: requestId() });
      });
    };
    if (this.options.tls === false) return createHttpServer(handler);
    return this.options.http2 === false
      ? createHttpsServer(serverTlsOptions(), handler)
      : createSecureServer({ ...serverTlsOptions(), allowHTTP1: true }, handler);
  }

  private async route(req: Request, res: Response): Promise<void> {
    const { body, size } = await readBody(req, MAX_BODY_BYTES);
    const path = (req.url ?? '').split('?')[0];
    if (req.method === 'POST' && path === HMS_TOKEN_PATH) return this.handleToken(req, res, body);
    const send = SEND_PATH.exec(path);
    if (req.method === 'POST' && send) return this.handleSend(req, res, decodeURIComponent(send[1]), body, size);
    sendJson(res, 404, { code: '404', msg: `no service at ${path}`, requestId: requestId() });
  }

  private async handleToken(req: Request, res: Response, body: Buffer): Promise<void> {
    const form = new URLSearchParams(body.toString('utf8'));
    const record: HmsTokenRequestRecord = { clientId: form.get('client_id'), grantType: form.get('grant_type'), status: 400, at: new Date() };
    this.tokenRequests.push(record);
    let answer: { status: number; body: unknown };
    const client = this.clients.get(form.get('client_id') ?? '');
    if (!(req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')) {
      answer = { status: 400, body: { error: 1102, sub_error: 20001, error_description: 'missing required parameter: grant_type' } };
    } else if (form.get('grant_type') !== 'client_credentials') {
      answer = { status: 400, body: { error: 1102, sub_error: 20002, error_description: 'unsupported grant_type' } };
    } else if (!client) {
      answer = { status: 400, body: { error: 1101, sub_error: 20016, error_description: 'invalid client' } };
    } else if (form.get('client_secret') !== client.client_secret) {
      answer = { status: 400, body: { error: 1101, sub_error: 20152, error_description: 'invalid client_secret' } };
    } else {
      const accessToken = `CF${randomBytes(48).toString('base64')}`;
      this.accessTokens.set(accessToken, { client, expiresAt: Date.now() + this.accessTokenTtlSeconds * 1000 });
      answer = { status: 200, body: { access_token: accessToken, expires_in: this.accessTokenTtlSeconds, token_type: 'Bearer' } };
    }
    record.status = answer.status;
    await this.applyDelay();
    sendJson(res, answer.status, answer.body);
  }

  private async handleSend(req: Request, res: Response, appId: string, body: Buffer, size: number): Promise<void> {
    const request = tryParseJson(body.toString('utf8'));
    const message = isPlainObject(request) ? request.message : undefined;
    const tokens = isPlainObject(message) && Array.isArray(message.token) ? message.token.filter((t): t is string => typeof t === 'string') : [];
    const validateOnly = isPlainObject(request) && request.validate_only === true;
    const id = requestId();

    let rejection: HmsRejection | undefined;
    try {
      this.authorize(req, appId);
      if (size > MAX_BODY_BYTES) throw new HmsRejection(400, HMS_CODES.tooLarge, 'The message body size exceeds the default value');
      validateRequest(request);
    } catch (error) {
      if (!(error instanceof HmsRejection)) throw error;
      rejection = error;
    }
    const illegal: string[] = [];
    let retryAfter: number | undefined;
    if (!rejection) {
      for (const token of tokens) {
        const step = MADE_UP_TOKEN.test(token) ? { status: 400, code: HMS_CODES.allTokensInvalid } : this.nextStep(token);
        if (!step) continue;
        if (step.code === HMS_CODES.allTokensInvalid) illegal.push(token);
        else if (!rejection) {
          rejection = new HmsRejection(step.status, step.code, step.msg ?? 'Error');
          retryAfter = step.retryAfter;
        }
      }
    }

    let status = 200;
    let answer: { code: string; msg: string; requestId: string };
    if (rejection) {
      status = rejection.status;
      answer = { code: rejection.code, msg: rejection.message, requestId: id };
    } else if (illegal.length === tokens.length) {
      status = 400;
      answer = { code: HMS_CODES.allTokensInvalid, msg: JSON.stringify({ success: 0, failure: illegal.length, illegal_tokens: illegal }), requestId: id };
    } else if (illegal.length > 0) {
      answer = {
        code: HMS_CODES.partial,
        msg: JSON.stringify({ success: tokens.length - illegal.length, failure: illegal.length, illegal_tokens: illegal }),
        requestId: id,
      };
    } else {
      answer = { code: HMS_CODES.success, msg: 'Success', requestId: id };
    }
    this.requests.push({
      appId,
      tokens,
      headers: plainHeaders(req.headers),
      message,
      validateOnly,
      httpVersion: req.httpVersion,
      status,
      code: answer.code,
      illegal,
      requestId: id,
      at: new Date(),
    });
    await this.applyDelay();
    sendJson(res, status, answer, retryAfter === undefined ? {} : { 'retry-after': String(retryAfter) });
  }

  private authorize(req: Request, appId: string): void {
    const accessToken = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '')?.[1];
    const grant = accessToken === undefined ? undefined : this.accessTokens.get(accessToken);
    if (!grant) throw new HmsRejection(401, HMS_CODES.authError, 'Oauth authentication error');
    if (grant.expiresAt <= Date.now()) throw new HmsRejection(401, HMS_CODES.tokenExpired, 'Oauth Token expired');
    // A token of one app's client sends for that app only.
    if (grant.client.app_id !== appId) throw new HmsRejection(401, HMS_CODES.authError, 'Oauth authentication error');
  }
}

function requestId(): string {
  return `${Date.now()}${randomBytes(6).readUIntBE(0, 6) % 1_000_000_000}`;
}

const badMessage = (why: string) => new HmsRejection(400, HMS_CODES.badMessage, `Illegal payload, ${why}`);
const badParameter = (why: string) => new HmsRejection(400, HMS_CODES.badParameter, `Check Parameter Error, ${why}`);

function validateRequest(request: unknown): void {
  if (!isPlainObject(request)) throw badMessage('the body is not a JSON object');
  const unknown = Object.keys(request).find((key) => !REQUEST_FIELDS.has(key));
  if (unknown) throw badParameter(`unknown field ${unknown}`);
  if (request.validate_only !== undefined && typeof request.validate_only !== 'boolean') throw badParameter('validate_only must be a boolean');
  const message = request.message;
  if (!isPlainObject(message)) throw badMessage('message is missing');
  const unknownField = Object.keys(message).find((key) => !MESSAGE_FIELDS.has(key));
  if (unknownField) throw badMessage(`unknown field message.${unknownField}`);
  if (!Array.isArray(message.token) || message.token.length === 0 || message.token.length > MAX_TOKENS || message.token.some((t) => typeof t !== 'string')) {
    throw new HmsRejection(400, HMS_CODES.tokenCount, 'The number of tokens in the message body exceeds the default value');
  }
  const { token: _tokens, ...rest } = message;
  if (Buffer.byteLength(JSON.stringify(rest)) > MAX_MESSAGE_BYTES)
    throw new HmsRejection(400, HMS_CODES.tooLarge, 'The message body size exceeds the default value');
  if (message.data !== undefined && typeof message.data !== 'string') throw badMessage('data must be a string');
  if (message.notification !== undefined) {
    const notification = message.notification;
    if (!isPlainObject(notification)) throw badMessage('notification must be an object');
    for (const [key, value] of Object.entries(notification)) {
      if (!NOTIFICATION_FIELDS.has(key)) throw badMessage(`unknown field notification.${key}`);
      if (typeof value !== 'string') throw badMessage(`notification.${key} must be a string`);
    }
    if (typeof notification.image === 'string' && !notification.image.startsWith('https://')) throw badMessage('notification.image must be an HTTPS URL');
  }
  if (message.android !== undefined) validateAndroid(message.android, message.notification !== undefined);
}

function validateAndroid(android: unknown, notificationMessage: boolean): void {
  if (!isPlainObject(android)) throw badMessage('android must be an object');
  const unknown = Object.keys(android).find((key) => !ANDROID_FIELDS.has(key));
  if (unknown) throw badMessage(`unknown field android.${unknown}`);
  const collapse = android.collapse_key;
  if (collapse !== undefined && !(Number.isInteger(collapse) && (collapse as number) >= -1 && (collapse as number) <= 100)) {
    throw new HmsRejection(400, HMS_CODES.badCollapseKey, 'The collapse_key message field is invalid');
  }
  if (android.urgency !== undefined && android.urgency !== 'HIGH' && android.urgency !== 'NORMAL') throw badMessage('android.urgency must be HIGH or NORMAL');
  if (android.ttl !== undefined) {
    const ttl = typeof android.ttl === 'string' ? /^(\d+)(\.\d+)?s$/.exec(android.ttl) : null;
    if (!ttl || Number(ttl[1]) > MAX_TTL_SECONDS) throw badMessage(`android.ttl must be "<seconds>s", at most ${MAX_TTL_SECONDS}s`);
  }
  if (android.data !== undefined && typeof android.data !== 'string') throw badMessage('android.data must be a string');
  if (android.notification === undefined) return;
  const notification = android.notification;
  if (!isPlainObject(notification)) throw badMessage('android.notification must be an object');
  if (!notificationMessage && notification.title === undefined) throw badMessage('android.notification needs a title');
  for (const [key, value] of Object.entries(notification)) {
    if (ANDROID_NOTIFICATION_STRINGS.has(key)) {
      if (typeof value !== 'string') throw badMessage(`android.notification.${key} must be a string`);
    } else if (!ANDROID_NOTIFICATION_OTHERS.has(key)) {
      throw badMessage(`unknown field android.notification.${key}`);
    }
  }
  const click = notification.click_action;
  if (!isPlainObject(click)) throw badMessage('android.notification.click_action is mandatory');
  if (![1, 2, 3, 4].includes(click.type as number)) throw badMessage('android.notification.click_action.type must be 1, 2, 3 or 4');
  if (click.type === 1 && typeof click.intent !== 'string' && typeof click.action !== 'string') {
    throw badMessage('android.notification.click_action needs an intent or an action when type is 1');
  }
  if (click.type === 2 && !(typeof click.url === 'string' && click.url.startsWith('https://')))
    throw badMessage('android.notification.click_action.url must be an HTTPS URL');
  if (notification.color !== undefined && !/^#[0-9a-fA-F]{6}$/.test(notification.color as string))
    throw badMessage('android.notification.color must be #RRGGBB');
  if (notification.icon !== undefined && !(notification.icon as string).startsWith('/raw/'))
    throw badMessage('android.notification.icon must name a file in /raw/');
  if (notification.visibility !== undefined && !VISIBILITIES.has(notification.visibility as string))
    throw badMessage('android.notification.visibility is invalid');
  if (notification.importance !== undefined && !IMPORTANCES.has(notification.importance as string))
    throw badMessage('android.notification.importance is invalid');
}

function sendJson(res: Response, status: number, body: unknown, headers: OutgoingHttpHeaders = {}): void {
  const text = JSON.stringify(body);
  (res as HeadWriter).writeHead(status, { ...headers, 'content-type': 'application/json;charset=UTF-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}
