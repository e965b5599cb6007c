import { Injectable, OnModuleDestroy, Optional } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { Gaxios, GaxiosOptionsPrepared } from 'gaxios';
import { JWT } from 'google-auth-library';
import { FailureReason } from '../../common/vocabulary';
import { EnvironmentVariables } from '../../config/env';
import { ProviderCredentials } from '../../credentials/provider-credentials';
import { MetricsService } from '../../metrics/metrics.service';
import { Destination, destinationOf, OriginTransport } from './origin-transport';
import { atHost, PROVIDER_TIMEOUT_MS, retryAfterMs, retryOutcome, transportReason } from './provider-http';
import { fcmBody, fcmMessage, PushContent } from './payloads';
import { CHECK_CONTENT, CredentialCheck, DeliveryOutcome, DeliveryTarget, MADE_UP_TOKEN, PushProvider } from './push-provider';

type FcmCredentials = NonNullable<ProviderCredentials['fcm']>;

const FCM_SCOPE = 'https://www.googleapis.com/auth/firebase.messaging';
/** The token URL google-auth-library hard-codes whatever the key file says; redirected to GOOGLE_TOKEN_URL. */
const LIBRARY_TOKEN_URL = 'https://oauth2.googleapis.com/token';
const FCM_ERROR_TYPE = 'type.googleapis.com/google.firebase.fcm.v1.FcmError';

interface GoogleErrorBody {
  error?: {
    code?: number;
    message?: string;
    status?: string;
    details?: { '@type'?: string; errorCode?: string }[];
  };
}

const UNAUTHORIZED = Symbol('unauthorized');

const FCM_FIELDS = ['content-type', 'application/json; charset=utf-8'] as const;

interface FcmRoute {
  to: Destination;
  clientKey: string;
}

/** FCM HTTP v1 (docs/api.md#delivery), over HTTP/2 where the origin negotiates it (docs/decisions/0020-provider-http2-negotiated-per-origin.md). */
@Injectable()
export class FcmProvider implements PushProvider, OnModuleDestroy {
  readonly platform = 'android' as const;
  /** FCM checks a `validate_only` message and delivers nothing. */
  readonly validatesDryRun = true;
  timeoutMs = PROVIDER_TIMEOUT_MS;

  /** One JWT client per key: it caches its token and dedupes refreshes, so a batch costs one token request. */
  private readonly clients = new Map<string, JWT>();
  private readonly bearers = new WeakMap<JWT, { token: string; bearer: string }>();
  private readonly routes = new WeakMap<FcmCredentials, FcmRoute>();
  private readonly transport = new OriginTransport();

  constructor(
    private readonly config: EnvironmentVariables,
    @Optional() private readonly metrics?: MetricsService,
  ) {}

  configured(credentials: ProviderCredentials): boolean {
    return credentials.fcm !== null;
  }

  async send(credentials: ProviderCredentials, content: PushContent, target: DeliveryTarget): Promise<DeliveryOutcome> {
    const fcm = credentials.fcm;
    if (!fcm) return { kind: 'failed', reason: FailureReason.FcmNotConfigured };
    if (!target.pushToken) return { kind: 'failed', reason: FailureReason.MissingRegistrationToken };
    const body = fcmBody(content, target.pushToken);
    const route = this.route(fcm);

    const first = await this.attempt(fcm, route, body);
    if (first !== UNAUTHORIZED) return first;
    // The token was revoked or expired early: once more with a freshly fetched one.
    const second = await this.attempt(fcm, route, body);
    return second === UNAUTHORIZED ? { kind: 'failed', reason: 'UNAUTHENTICATED' } : second;
  }

  private async attempt(fcm: FcmCredentials, route: FcmRoute, body: string): Promise<DeliveryOutcome | typeof UNAUTHORIZED> {
    const client = this.client(fcm, route.clientKey);
    let accessToken = freshToken(client);
    if (accessToken === undefined) {
      try {
        const { token } = await client.getAccessToken();
        if (!token) return retryOutcome('NoAccessToken');
        accessToken = token;
      } catch (error) {
        return tokenFailure(error, new URL(this.config.GOOGLE_TOKEN_URL));
      }
    }

    const answer = await this.transport.post(route.to, FCM_FIELDS, this.bearer(client, accessToken), body, this.timeoutMs);
    this.metrics?.recordProviderAnswer('fcm', 'status' in answer ? answer.status : undefined);
    if ('failure' in answer) return retryOutcome(atHost(answer.failure, route.to.url));
    const { status, body: text } = answer;

    if (status === 401) {
      // Only the client still holding the refused token is replaced: one token request per 401 burst.
      if (this.clients.get(route.clientKey) === client && client.credentials.access_token === accessToken) {
        this.clients.delete(route.clientKey);
      }
      return UNAUTHORIZED;
    }
    return outcomeOf(status, text, answer.headers['retry-after']);
  }

  private bearer(client: JWT, token: string): string {
    const last = this.bearers.get(client);
    if (last?.token === token) return last.bearer;
    const bearer = `Bearer ${token}`;
    this.bearers.set(client, { token, bearer });
    return bearer;
  }

  /** Token exchange, then a `validate_only` send (docs/api.md#credentials-check): any answer but 401/403 accepts. */
  async check(credentials: ProviderCredentials): Promise<CredentialCheck> {
    const fcm = credentials.fcm!;
    const what = `service account ${fcm.clientEmail} of project ${fcm.projectId}`;
    const tokenUrl = new URL(this.config.GOOGLE_TOKEN_URL);
    const route = this.route(fcm);
    let accessToken: string | null | undefined;
    try {
      ({ token: accessToken } = await this.client(fcm, route.clientKey).getAccessToken());
    } catch (error) {
      const outcome = tokenFailure(error, tokenUrl);
      return { ok: false, detail: `${what}: the token exchange at ${tokenUrl.hostname} failed (${outcome.kind === 'accepted' ? '' : outcome.reason})` };
    }
    if (!accessToken) return { ok: false, detail: `${what}: ${tokenUrl.hostname} gave no access token` };

    const url = route.to.url;
    const message = fcmMessage({ id: randomUUID(), ...CHECK_CONTENT, options: null }, MADE_UP_TOKEN);
    const answer = await this.transport.post(route.to, FCM_FIELDS, `Bearer ${accessToken}`, JSON.stringify({ validate_only: true, message }), this.timeoutMs);
    if ('failure' in answer) return { ok: false, detail: `${what}: ${atHost(answer.failure, url)}` };
    const outcome = outcomeOf(answer.status, answer.body, undefined);
    const said = `HTTP ${answer.status}${outcome.kind === 'accepted' ? '' : ` ${outcome.reason}`}`;
    if (answer.status === 401 || answer.status === 403) return { ok: false, detail: `${what}: ${url.hostname} refused the credentials (${said})` };
    return { ok: true, detail: `${what}: token exchange and a validate_only send answered by ${url.hostname} (${said} for a token no device has)` };
  }

  /** The project's `messages:send` URL and its JWT client's key, once per credentials object. */
  private route(fcm: FcmCredentials): FcmRoute {
    let route = this.routes.get(fcm);
    if (route === undefined) {
      const url = new URL(`${this.config.FCM_URL.replace(/\/+$/, '')}/v1/projects/${encodeURIComponent(fcm.projectId)}/messages:send`);
      route = { to: destinationOf(url), clientKey: `${fcm.clientEmail} ${fcm.privateKeyId}` };
      this.routes.set(fcm, route);
    }
    return route;
  }

  get openSessions(): number {
    return this.transport.openSessions;
  }

  onModuleDestroy(): void {
    this.transport.close();
  }

  private client(fcm: FcmCredentials, key: string): JWT {
    let client = this.clients.get(key);
    if (!client) {
      client = new JWT({
        email: fcm.clientEmail,
        key: fcm.privateKey,
        keyId: fcm.privateKeyId,
        scopes: [FCM_SCOPE],
        transporter: tokenTransporter(this.timeoutMs, this.config.GOOGLE_TOKEN_URL),
      });
      this.clients.set(key, client);
    }
    return client;
  }
}

/** The client's token while it outlives the library's refresh margin, read without a promise; else undefined. */
function freshToken(client: JWT): string | undefined {
  const { access_token: token, expiry_date: expiry } = client.credentials;
  return token && (!expiry || expiry > Date.now() + client.eagerRefreshThresholdMillis) ? token : undefined;
}

/** Rewrites gtoken's hard-coded token URL to GOOGLE_TOKEN_URL (tests reach the fake); one per client. */
function tokenTransporter(timeoutMs: number, target: string): Gaxios {
  // Node's fetch rather than gaxios' dynamic import of ESM-only node-fetch.
  const transporter = new Gaxios({ timeout: timeoutMs, fetchImplementation: fetch });
  transporter.interceptors.request.add({
    resolved: async (options: GaxiosOptionsPrepared) => {
      if (options.url.href === LIBRARY_TOKEN_URL && target !== LIBRARY_TOKEN_URL) options.url = new URL(target);
      return options;
    },
  });
  return transporter;
}

/** The token endpoint failed: Google's OAuth errors (revoked key, bad grant) will not fix themselves. */
export function tokenFailure(error: unknown, tokenUrl: URL): DeliveryOutcome {
  const response = (error as { response?: { status?: number; data?: unknown; headers?: Headers } }).response;
  const status = response?.status;
  if (status === undefined) return retryOutcome(`TokenEndpoint:${atHost(transportReason(error), tokenUrl)}`);
  if (status === 429 || status >= 500) {
    return retryOutcome(`TokenEndpoint:HTTP ${status}`, retryAfterMs(response?.headers?.get?.('retry-after')));
  }
  const data = response?.data as { error?: unknown } | undefined;
  return { kind: 'failed', reason: `OAuth:${typeof data?.error === 'string' ? data.error : `HTTP ${status}`}` };
}

/** FCM's answer names the message (`projects/{project}/messages/{id}`): its provider message id (docs/api.md#provider-message-ids). */
function acceptedMessage(text: string): DeliveryOutcome {
  let name: unknown;
  try {
    name = (JSON.parse(text) as { name?: unknown }).name;
  } catch {
    // An answer without Google's JSON still accepted the message.
  }
  return typeof name === 'string' && name !== '' ? { kind: 'accepted', providerMessageId: name } : { kind: 'accepted' };
}

/** FCM v1 status + error body -> outcome (Firebase "FCM error codes" reference). */
export function outcomeOf(status: number, text: string, retryAfter: string | string[] | undefined): DeliveryOutcome {
  if (status >= 200 && status < 300) return acceptedMessage(text);
  let body: GoogleErrorBody = {};
  try {
    body = JSON.parse(text) as GoogleErrorBody;
  } catch {
    // Not Google's JSON (a proxy's error page): the status alone decides.
  }
  const error = body.error ?? {};
  const errorCode = error.details?.find((detail) => detail['@type'] === FCM_ERROR_TYPE)?.errorCode;
  const message = error.message ?? '';
  const reason = errorCode ?? error.status ?? `HTTP ${status}`;

  if (errorCode === 'UNREGISTERED') return { kind: 'invalid', reason: 'UNREGISTERED' };
  if (status === 400 && reason === 'INVALID_ARGUMENT' && /registration token/i.test(message) && /not a valid|invalid/i.test(message)) {
    return { kind: 'invalid', reason: 'INVALID_ARGUMENT' };
  }
  if (status === 413 || (status === 400 && /too big|too large/i.test(message))) return { kind: 'failed', reason: FailureReason.PayloadTooLarge };
  if (status === 429 || status >= 500) return retryOutcome(reason, retryAfterMs(retryAfter));
  return { kind: 'failed', reason };
}
