import { createPublicKey, generateKeyPairSync, randomBytes, type KeyObject } from 'node:crypto';
import { createServer as createHttpServer, type IncomingMessage, type OutgoingHttpHeaders, type ServerResponse } from 'node:http';
import { createSecureServer, type Http2ServerRequest, type Http2ServerResponse } from 'node:http2';
import { createServer as createHttpsServer } from 'node:https';
import { decodeJwt, decodeProtectedHeader, errors as joseErrors, jwtVerify } from 'jose';
import { FakeTlsServer, isPlainObject, plainHeaders, readBody, serverTlsOptions, tryParseJson } from './fake-server';

type Request = IncomingMessage | Http2ServerRequest;
type Response = ServerResponse | Http2ServerResponse;
type HeadWriter = { writeHead(status: number, headers: OutgoingHttpHeaders): unknown };

/** gtoken's audience and URL whatever `token_uri` says; the fake accepts it too. */
export const GOOGLE_TOKEN_URL = 'https://oauth2.googleapis.com/token';
const JWT_BEARER_GRANT = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
const FCM_SCOPES = ['https://www.googleapis.com/auth/firebase.messaging', 'https://www.googleapis.com/auth/cloud-platform'];
const MAX_ASSERTION_LIFETIME_SECONDS = 3600;
const MAX_MESSAGE_PAYLOAD_BYTES = 4096;
const MAX_BODY_BYTES = 1024 * 1024;
const SEND_PATH = /^\/v1\/projects\/([^/]+)\/messages:send$/;
const FCM_ERROR_TYPE = 'type.googleapis.com/google.firebase.fcm.v1.FcmError';
const BAD_REQUEST_TYPE = 'type.googleapis.com/google.rpc.BadRequest';
const REQUEST_FIELDS = new Set(['message', 'validate_only', 'validateOnly']);
const MESSAGE_FIELDS = new Set(['name', 'data', 'notification', 'android', 'webpush', 'apns', 'fcm_options', 'fcmOptions', 'token', 'topic', 'condition']);
const NOTIFICATION_FIELDS = ['title', 'body', 'image'];
/** Zeros (what `credentials:check` sends) are never a token Google issued. */
const MADE_UP_TOKEN = /^[0:]+$/;
const RESERVED_DATA_KEY = /^(from|message_type|google\..*|gcm\..*)$/i;

const RPC_STATUS: Record<number, [status: string, message: string]> = {
  400: ['INVALID_ARGUMENT', 'Request contains an invalid argument.'],
  401: ['UNAUTHENTICATED', 'Request had invalid authentication credentials.'],
  403: ['PERMISSION_DENIED', 'SenderId mismatch'],
  404: ['NOT_FOUND', 'Requested entity was not found.'],
  429: ['RESOURCE_EXHAUSTED', 'Quota exceeded for quota metric of service firebasecloudmessaging.googleapis.com.'],
  500: ['INTERNAL', 'Internal error encountered.'],
  503: ['UNAVAILABLE', 'The service is currently unavailable.'],
};

export interface ServiceAccount {
  type: 'service_account';
  project_id: string;
  private_key_id: string;
  private_key: string;
  client_email: string;
  client_id: string;
  auth_uri: string;
  token_uri: string;
  auth_provider_x509_cert_url: string;
  client_x509_cert_url: string;
  universe_domain: string;
}

export type FcmErrorCode =
  'UNSPECIFIED_ERROR' | 'INVALID_ARGUMENT' | 'UNREGISTERED' | 'SENDER_ID_MISMATCH' | 'QUOTA_EXCEEDED' | 'UNAVAILABLE' | 'INTERNAL' | 'THIRD_PARTY_AUTH_ERROR';

export interface FcmStep {
  status: number;
  errorCode: FcmErrorCode;
  message?: string;
  retryAfter?: number;
}

export interface FcmRequestRecord {
  projectId: string;
  token: string;
  headers: Record<string, string>;
  message: unknown;
  validateOnly: boolean;
  httpVersion: string;
  status: number;
  errorCode?: string;
  /** The message's `name` the answer gave, when accepted. */
  name?: string;
  at: Date;
}

export interface FcmTokenRequestRecord {
  iss?: string;
  aud?: string;
  scope?: string;
  status: number;
  error?: string;
  at: Date;
}

interface Account {
  email: string;
  projectId: string;
  publicKey: KeyObject;
}

interface FcmError {
  status: number;
  message: string;
  errorCode?: string;
  field?: string;
  retryAfter?: number;
}

type AssertionCheck = { account: Account } | { error: string; description: string };

class FcmRejection extends Error {
  constructor(readonly error: FcmError) {
    super(error.message);
  }
}

/** Loopback Google OAuth2 token endpoint and FCM HTTP v1 `messages:send` on one origin. */
export class FakeFcm extends FakeTlsServer<FcmStep, FcmRequestRecord> {
  /** HTTP/2 with HTTP/1.1 accepted, by default; `http2: false` HTTP/1.1 only; `tls: false` plain http://. */
  constructor(private readonly options: { http2?: boolean; tls?: boolean } = {}) {
    super();
    this.scheme = options.tls === false ? 'http' : 'https';
  }

  protected override readonly scheme: 'https' | 'http';

  readonly tokenRequests: FcmTokenRequestRecord[] = [];
  accessTokenTtlSeconds = 3599;

  private readonly accountsByKeyId = new Map<string, Account>();
  private readonly accountsByEmail = new Map<string, Account>();
  private readonly accessTokens = new Map<string, { account: Account; expiresAt: number }>();

  get tokenUrl(): string {
    return `${this.baseUrl}/token`;
  }

  createServiceAccount(projectId: string): ServiceAccount {
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const email = `push-${randomBytes(4).toString('hex')}@${projectId}.iam.gserviceaccount.com`;
    const keyId = randomBytes(20).toString('hex');
    const account: Account = { email, projectId, publicKey };
    this.accountsByKeyId.set(keyId, account);
    this.accountsByEmail.set(email, account);
    return {
      type: 'service_account',
      project_id: projectId,
      private_key_id: keyId,
      private_key: privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
      client_email: email,
      client_id: `1${Array.from(randomBytes(20), (byte) => byte % 10).join('')}`,
      auth_uri: 'https://accounts.google.com/o/oauth2/auth',
      token_uri: this.tokenUrl,
      auth_provider_x509_cert_url: 'https://www.googleapis.com/oauth2/v1/certs',
      client_x509_cert_url: `https://www.googleapis.com/robot/v1/metadata/x509/${encodeURIComponent(email)}`,
      universe_domain: 'googleapis.com',
    };
  }

  addServiceAccount(account: ServiceAccount): void {
    const entry: Account = { email: account.client_email, projectId: account.project_id, publicKey: createPublicKey(account.private_key) };
    this.accountsByKeyId.set(account.private_key_id, entry);
    this.accountsByEmail.set(account.client_email, entry);
  }

  deliveredCount(token?: string): number {
    return this.requests.filter((r) => r.status === 200 && !r.validateOnly && (token === undefined || r.token === token)).length;
  }

  override reset(): void {
    super.reset();
    this.tokenRequests.length = 0;
  }

  protected createServer() {
    const handler = (req: Request, res: Response) => {
      this.route(req, res).catch((error: unknown) => {
        if (!res.headersSent) sendJson(res, 500, googleError({ status: 500, message: String(error) }));
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
    if (req.method === 'POST' && path === '/token') return this.handleToken(req, res, body);
    const send = SEND_PATH.exec(path);
    if (req.method === 'POST' && send) return this.handleSend(req, res, decodeURIComponent(send[1]), body, size);
    sendJson(res, 404, googleError({ status: 404, message: `The requested URL ${path} was not found.` }));
  }

  private async handleToken(req: Request, res: Response, body: Buffer): Promise<void> {
    const form = new URLSearchParams(body.toString('utf8'));
    const assertion = form.get('assertion') ?? '';
    const record: FcmTokenRequestRecord = { status: 400, at: new Date() };
    try {
      const claims = decodeJwt(assertion);
      record.iss = typeof claims.iss === 'string' ? claims.iss : undefined;
      record.aud = typeof claims.aud === 'string' ? claims.aud : undefined;
      record.scope = typeof claims.scope === 'string' ? claims.scope : undefined;
    } catch {
      // Not a JWT: reported below by the real check.
    }
    this.tokenRequests.push(record);

    let answer: { status: number; body: unknown };
    if (!(req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')) {
      answer = oauthError('invalid_request', 'Request must be application/x-www-form-urlencoded.');
    } else if (form.get('grant_type') !== JWT_BEARER_GRANT) {
      answer = oauthError('unsupported_grant_type', `Invalid grant_type: ${form.get('grant_type') ?? ''}`);
    } else {
      const check = await this.checkAssertion(assertion);
      answer = 'error' in check ? oauthError(check.error, check.description) : this.issueAccessToken(check.account);
    }
    record.status = answer.status;
    if (answer.status !== 200) record.error = (answer.body as { error: string }).error;
    await this.applyDelay();
    sendJson(res, answer.status, answer.body, { 'cache-control': 'no-store' });
  }

  private async checkAssertion(assertion: string): Promise<AssertionCheck> {
    const badSignature = { error: 'invalid_grant', description: 'Invalid JWT Signature.' };
    let account: Account | undefined;
    try {
      const { kid } = decodeProtectedHeader(assertion);
      const { iss } = decodeJwt(assertion);
      // gtoken sends no `kid`; other clients name the key by private_key_id.
      account = typeof kid === 'string' ? this.accountsByKeyId.get(kid) : typeof iss === 'string' ? this.accountsByEmail.get(iss) : undefined;
    } catch {
      return { error: 'invalid_grant', description: 'Invalid JWT: Malformed assertion.' };
    }
    if (!account) return badSignature;

    let claims: Record<string, unknown>;
    try {
      ({ payload: claims } = await jwtVerify(assertion, account.publicKey, {
        algorithms: ['RS256'],
        issuer: account.email,
        audience: [this.tokenUrl, GOOGLE_TOKEN_URL],
        requiredClaims: ['iat', 'exp'],
      }));
    } catch (error) {
      if (error instanceof joseErrors.JWTClaimValidationFailed && error.claim === 'aud') {
        return { error: 'invalid_grant', description: 'Invalid JWT: Failed audience check.' };
      }
      if (error instanceof joseErrors.JWTExpired) return shortLivedError();
      return badSignature;
    }
    const iat = claims.iat as number;
    const exp = claims.exp as number;
    if (exp - iat > MAX_ASSERTION_LIFETIME_SECONDS || iat > Date.now() / 1000 + 60) return shortLivedError();
    const scope = typeof claims.scope === 'string' ? claims.scope : '';
    if (!scope.split(' ').some((s) => FCM_SCOPES.includes(s))) {
      return { error: 'invalid_scope', description: 'Invalid OAuth scope or ID token audience provided.' };
    }
    return { account };
  }

  private issueAccessToken(account: Account): { status: number; body: unknown } {
    const accessToken = `ya29.fake-${randomBytes(32).toString('base64url')}`;
    this.accessTokens.set(accessToken, { account, expiresAt: Date.now() + this.accessTokenTtlSeconds * 1000 });
    return {
      status: 200,
      body: { access_token: accessToken, expires_in: this.accessTokenTtlSeconds, token_type: 'Bearer' },
    };
  }

  private async handleSend(req: Request, res: Response, projectId: string, body: Buffer, size: number): Promise<void> {
    const request = tryParseJson(body.toString('utf8'));
    const message = isPlainObject(request) ? request.message : undefined;
    const token = isPlainObject(message) && typeof message.token === 'string' ? message.token : '';
    const validateOnly = isPlainObject(request) && (request.validate_only === true || request.validateOnly === true);

    let error: FcmError | undefined;
    try {
      this.authorize(req, projectId);
      if (size > MAX_BODY_BYTES) throw new FcmRejection({ status: 413, message: 'Request payload too large.' });
      validateRequest(request);
    } catch (rejection) {
      if (!(rejection instanceof FcmRejection)) throw rejection;
      error = rejection.error;
    }
    if (!error) {
      const step = this.nextStep(token);
      if (step) error = { ...step, message: step.message ?? RPC_STATUS[step.status]?.[1] ?? 'Error' };
    }

    const status = error?.status ?? 200;
    // validate_only answers with this fixed id on the real service too.
    const name = error ? undefined : `projects/${projectId}/messages/${validateOnly ? 'fake_message_id' : `0:${Date.now()}%${randomBytes(8).toString('hex')}`}`;
    this.requests.push({
      projectId,
      token,
      headers: plainHeaders(req.headers),
      message,
      validateOnly,
      httpVersion: req.httpVersion,
      status,
      errorCode: error?.errorCode,
      name,
      at: new Date(),
    });
    await this.applyDelay();

    if (error) {
      const headers: OutgoingHttpHeaders = {};
      if (error.retryAfter !== undefined) headers['retry-after'] = String(error.retryAfter);
      if (status === 401) headers['www-authenticate'] = 'Bearer realm="https://accounts.google.com/"';
      sendJson(res, status, googleError(error), headers);
      return;
    }
    sendJson(res, 200, { name });
  }

  private authorize(req: Request, projectId: string): void {
    const header = req.headers.authorization;
    const accessToken = /^Bearer (\S+)$/i.exec(header ?? '')?.[1];
    const grant = accessToken === undefined ? undefined : this.accessTokens.get(accessToken);
    if (!grant || grant.expiresAt <= Date.now()) {
      const what = header === undefined ? 'is missing required' : 'had invalid';
      throw new FcmRejection({
        status: 401,
        message:
          `Request ${what} authentication credentials. Expected OAuth 2 access token, login cookie or other valid ` +
          'authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.',
      });
    }
    if (grant.account.projectId !== projectId) {
      throw new FcmRejection({
        status: 403,
        message: `Permission 'cloudmessaging.messages.create' denied on resource '//cloudresourcemanager.googleapis.com/projects/${projectId}' (or it may not exist).`,
      });
    }
  }
}

/** What FCM refuses of a `messages:send` body; throws its error (message = Google's). */
export function validateRequest(request: unknown): void {
  if (!isPlainObject(request)) throw invalidJson('Invalid JSON payload received. Expected an object.');
  const unknownField = Object.keys(request).find((key) => !REQUEST_FIELDS.has(key));
  if (unknownField) throw invalidJson(`Invalid JSON payload received. Unknown name "${unknownField}": Cannot find field.`);
  for (const field of ['validate_only', 'validateOnly'] as const) {
    if (request[field] !== undefined && typeof request[field] !== 'boolean') throw typeError(field, 'TYPE_BOOL', request[field]);
  }
  const message = request.message;
  if (!isPlainObject(message)) throw fcmInvalid('Message must be set.');
  const unknownMessageField = Object.keys(message).find((key) => !MESSAGE_FIELDS.has(key));
  if (unknownMessageField) {
    throw invalidJson(`Invalid JSON payload received. Unknown name "${unknownMessageField}" at 'message': Cannot find field.`, `message`);
  }

  if (message.token === undefined) throw fcmInvalid('Recipient of the message is not set.');
  if (typeof message.token !== 'string') throw typeError('message.token', 'TYPE_STRING', message.token);
  if (MADE_UP_TOKEN.test(message.token)) throw fcmInvalid('The registration token is not a valid FCM registration token');

  let payloadBytes = 0;
  if (message.data !== undefined) {
    if (!isPlainObject(message.data)) throw typeError('message.data', 'TYPE_MAP', message.data);
    for (const [index, [key, value]] of Object.entries(message.data).entries()) {
      if (typeof value !== 'string') throw typeError(`message.data[${index}].value`, 'TYPE_STRING', value);
      if (RESERVED_DATA_KEY.test(key)) throw fcmInvalid(`Invalid data payload key: ${key}`);
      payloadBytes += Buffer.byteLength(key) + Buffer.byteLength(value);
    }
  }
  // A message meant to be data-only that still carries a `notification` key (empty or null) is refused.
  if ('notification' in message && (message.notification === null || (isPlainObject(message.notification) && Object.keys(message.notification).length === 0))) {
    throw fcmInvalid('A data-only message must not have a notification key.');
  }
  if (message.notification !== undefined) {
    const notification = message.notification;
    if (!isPlainObject(notification)) throw typeError('message.notification', 'TYPE_MESSAGE', notification);
    for (const field of NOTIFICATION_FIELDS) {
      const value = notification[field];
      if (value === undefined) continue;
      if (typeof value !== 'string') throw typeError(`message.notification.${field}`, 'TYPE_STRING', value);
      payloadBytes += Buffer.byteLength(value);
    }
  }
  // Approximation of FCM's accounting: UTF-8 bytes of data keys/values and notification texts.
  if (payloadBytes > MAX_MESSAGE_PAYLOAD_BYTES) throw fcmInvalid('Message is too big');

  if (message.android !== undefined) {
    const android = message.android;
    if (!isPlainObject(android)) throw typeError('message.android', 'TYPE_MESSAGE', android);
    if (android.ttl !== undefined && !(typeof android.ttl === 'string' && /^\d+(\.\d+)?s$/.test(android.ttl))) {
      throw typeError('message.android.ttl', 'type.googleapis.com/google.protobuf.Duration', android.ttl);
    }
    if (android.priority !== undefined && android.priority !== 'HIGH' && android.priority !== 'NORMAL') {
      throw typeError('message.android.priority', 'type.googleapis.com/google.firebase.fcm.v1.AndroidMessagePriority', android.priority);
    }
    validateAndroidConfig(android);
    if (android.notification !== undefined) validateAndroidNotification(android.notification);
  }
  for (const field of ['apns', 'webpush'] as const) {
    if (message[field] !== undefined && !isPlainObject(message[field])) {
      throw typeError(`message.${field}`, 'TYPE_MESSAGE', message[field]);
    }
  }
}

const ANDROID_NOTIFICATION_STRINGS = new Set([
  'title',
  'body',
  'icon',
  'color',
  'sound',
  'tag',
  'click_action',
  'body_loc_key',
  'title_loc_key',
  'channel_id',
  'ticker',
  'image',
  'event_time',
  'notification_priority',
]);
const ANDROID_NOTIFICATION_OTHERS = new Set([
  'body_loc_args',
  'title_loc_args',
  'sticky',
  'local_only',
  'default_sound',
  'default_vibrate_timings',
  'default_light_settings',
  'vibrate_timings',
  'visibility',
  'notification_count',
  'light_settings',
  'bypass_proxy_notification',
  'proxy',
]);
const VISIBILITIES = new Set(['VISIBILITY_UNSPECIFIED', 'PRIVATE', 'PUBLIC', 'SECRET']);
const PROXIES = new Set(['PROXY_UNSPECIFIED', 'ALLOW', 'DENY', 'IF_PRIORITY_LOWERED']);

/** Firebase's AndroidConfig (REST reference, projects.messages): its fields, in proto or JSON names; the booleans only booleans. */
const ANDROID_CONFIG_FIELDS = new Set(['collapse_key', 'priority', 'ttl', 'restricted_package_name', 'data', 'notification', 'fcm_options', 'direct_boot_ok']);
const ANDROID_CONFIG_BOOLEANS = ['direct_boot_ok', 'bandwidth_constrained_ok', 'restricted_satellite_ok'];
const camel = (name: string) => name.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase());
const ANDROID_CONFIG_NAMES = new Set([...ANDROID_CONFIG_FIELDS, ...ANDROID_CONFIG_BOOLEANS].flatMap((name) => [name, camel(name)]));

function validateAndroidConfig(android: Record<string, unknown>): void {
  const at = 'message.android';
  for (const key of Object.keys(android)) {
    if (!ANDROID_CONFIG_NAMES.has(key)) throw invalidJson(`Invalid JSON payload received. Unknown name "${key}" at '${at}': Cannot find field.`, at);
  }
  for (const field of ANDROID_CONFIG_BOOLEANS) {
    for (const name of [field, camel(field)]) {
      if (android[name] !== undefined && typeof android[name] !== 'boolean') throw typeError(`${at}.${field}`, 'TYPE_BOOL', android[name]);
    }
  }
}

function validateAndroidNotification(notification: unknown): void {
  const at = 'message.android.notification';
  if (!isPlainObject(notification)) throw typeError(at, 'TYPE_MESSAGE', notification);
  for (const [key, value] of Object.entries(notification)) {
    if (ANDROID_NOTIFICATION_STRINGS.has(key)) {
      if (typeof value !== 'string') throw typeError(`${at}.${key}`, 'TYPE_STRING', value);
    } else if (!ANDROID_NOTIFICATION_OTHERS.has(key)) {
      throw invalidJson(`Invalid JSON payload received. Unknown name "${key}" at '${at}': Cannot find field.`, at);
    }
  }
  if (notification.color !== undefined && !/^#[0-9a-fA-F]{6}$/.test(notification.color as string)) {
    throw fcmInvalid('Invalid color format. Color must be in the form #rrggbb.');
  }
  if (notification.visibility !== undefined && !VISIBILITIES.has(notification.visibility as string)) {
    throw typeError(`${at}.visibility`, 'type.googleapis.com/google.firebase.fcm.v1.AndroidNotification.Visibility', notification.visibility);
  }
  if (notification.proxy !== undefined && !PROXIES.has(notification.proxy as string)) {
    throw typeError(`${at}.proxy`, 'type.googleapis.com/google.firebase.fcm.v1.AndroidNotification.Proxy', notification.proxy);
  }
}

/** Semantic errors carry an FcmError detail, which clients branch on. */
function fcmInvalid(message: string): FcmRejection {
  return new FcmRejection({ status: 400, message, errorCode: 'INVALID_ARGUMENT' });
}

function invalidJson(message: string, field = ''): FcmRejection {
  return new FcmRejection({ status: 400, message, field });
}

function typeError(field: string, type: string, value: unknown): FcmRejection {
  return invalidJson(`Invalid value at '${field}' (${type}), ${JSON.stringify(value)}`, field);
}

function googleError(error: FcmError): { error: Record<string, unknown> } {
  const [status] = RPC_STATUS[error.status] ?? ['UNKNOWN'];
  const details: unknown[] = [];
  if (error.errorCode !== undefined) details.push({ '@type': FCM_ERROR_TYPE, errorCode: error.errorCode });
  if (error.field !== undefined) {
    const violation = error.field === '' ? { description: error.message } : { field: error.field, description: error.message };
    details.push({ '@type': BAD_REQUEST_TYPE, fieldViolations: [violation] });
  }
  const body: Record<string, unknown> = { code: error.status, message: error.message, status };
  if (details.length > 0) body.details = details;
  return { error: body };
}

function oauthError(error: string, description: string): { status: number; body: unknown } {
  return { status: 400, body: { error, error_description: description } };
}

function shortLivedError(): { error: string; description: string } {
  return {
    error: 'invalid_grant',
    description: 'Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe. Check your iat and exp values in the JWT claim.',
  };
}

function sendJson(res: Response, status: number, body: unknown, headers: OutgoingHttpHeaders = {}): void {
  const text = JSON.stringify(body);
  (res as HeadWriter).writeHead(status, {
    ...headers,
    'content-type': 'application/json; charset=UTF-8',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}
