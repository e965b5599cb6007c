import { Injectable, OnModuleDestroy } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { Gaxios, GaxiosOptionsPrepared } from 'gaxios';
import { JWT } from 'google-auth-library';
import { FailureReason } from '../../common/vocabulary';
import { EnvironmentVariables } from '../../config/env';
import { ProviderCredentials } from '../../credentials/provider-credentials';
import { Destination, destinationOf, OriginTransport } from './origin-transport';
import { atHost, PROVIDER_TIMEOUT_MS, retryAfterMs, retryOutcome, transportReason } from './provider-http';
import { fcmBody, fcmMessage, PushContent } from './payloads';
import { CHECK_CONTENT, CredentialCheck, DeliveryOutcome, DeliveryTarget, MADE_UP_TOKEN, PushProvider } from './push-provider';

type FcmCredentials = NonNullable<ProviderCredentials['fcm']>;

const FCM_SCOPE = 'https://www.googleapis.com/auth/firebase.messaging';
/**
 * The token endpoint google-auth-library 10 hard-codes (build/src/gtoken/getToken.js) whatever the
 * key file's `token_uri` says; we redirect it to GOOGLE_TOKEN_URL, which defaults to this same URL.
 */
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

/** An attempt whose access token FCM refused: the cached token is dropped and one retry follows. */
const UNAUTHORIZED = Symbol('unauthorized');

/** The headers of every FCM request but its `authorization`, as node:http2's flat list. */
const FCM_FIELDS = ['content-type', 'application/json; charset=utf-8'] as const;

/** A project's sends, worked out on its first: where they go, and the key of its JWT client. */
interface FcmRoute {
  to: Destination;
  clientKey: string;
}

/**
 * FCM HTTP v1 (docs/api.md#delivery): OAuth2 access tokens from the app's service account, then one
 * `messages:send` per device. Google serves the v1 API over HTTP/2, so sends are streams on a few
 * long-lived connections (as the Firebase Admin SDK does since v12): over HTTP/1.1 each in-flight
 * send needs a TLS connection of its own, and the worker spent about five times the CPU per
 * message that an APNs send costs. Proxies, emulators and test servers often speak only HTTP/1.1,
 * so the protocol is negotiated per origin (OriginTransport, shared with Web Push): HTTP/2 where
 * the server picks `h2`, keep-alive HTTP/1.1 otherwise.
 */
@Injectable()
export class FcmProvider implements PushProvider, OnModuleDestroy {
  readonly platform = 'android' as const;
  /** A dry run's message goes with `validate_only: true`: FCM checks it all and delivers nothing. */
  readonly validatesDryRun = true;
  /** Per-request deadline; lowered by tests. */
  timeoutMs = PROVIDER_TIMEOUT_MS;

  /**
   * One JWT client per service-account key. The client keeps its access token and fetches a new
   * one only shortly before expiry (5 minutes, the library's default), deduplicating concurrent
   * refreshes, so a batch of thousands of sends costs at most one token request.
   */
  private readonly clients = new Map<string, JWT>();
  /** `Bearer <access token>` per client, built once per token. */
  private readonly bearers = new WeakMap<JWT, { token: string; bearer: string }>();
  private readonly routes = new WeakMap<FcmCredentials, FcmRoute>();
  private readonly transport = new OriginTransport();

  constructor(private readonly config: EnvironmentVariables) {}

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
    // The token the client holds while it is fresh (no turn waited), else the client's own refresh.
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
    if ('failure' in answer) return retryOutcome(atHost(answer.failure, route.to.url));
    const { status, body: text } = answer;

    if (status === 401) {
      // Only the client still holding the refused token is replaced: concurrent sends that got
      // the same 401 must not each trigger their own token request.
      if (this.clients.get(route.clientKey) === client && client.credentials.access_token === accessToken) {
        this.clients.delete(route.clientKey);
      }
      return UNAUTHORIZED;
    }
    return outcomeOf(status, text, answer.headers['retry-after']);
  }

  /** `Bearer <token>`, the same string for every request while the token lasts. */
  private bearer(client: JWT, token: string): string {
    const last = this.bearers.get(client);
    if (last?.token === token) return last.bearer;
    const bearer = `Bearer ${token}`;
    this.bearers.set(client, { token, bearer });
    return bearer;
  }

  /**
   * The OAuth2 token exchange, then a `validate_only` send to a token no device has
   * (docs/api.md#credentials-check): any answer but 401 or 403 means Google took the credentials.
   */
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

  /**
   * The project's `messages:send` URL and its JWT client's key, once per credentials object (the
   * credentials service keeps one per app while its credentials are unchanged). Sent in the
   * protocol FCM_URL's origin negotiated: HTTP/2 when TLS ALPN picked h2, else keep-alive HTTP/1.1
   * (always, for a plain http:// URL: docs/operations.md "TLS and connection poolers").
   */
  private route(fcm: FcmCredentials): FcmRoute {
    let route = this.routes.get(fcm);
    if (route === undefined) {
      const url = new URL(`${this.config.FCM_URL.replace(/\/+$/, '')}/v1/projects/${encodeURIComponent(fcm.projectId)}/messages:send`);
      route = { to: destinationOf(url), clientKey: `${fcm.clientEmail} ${fcm.privateKeyId}` };
      this.routes.set(fcm, route);
    }
    return route;
  }

  /** Open HTTP/2 connections (for tests and diagnostics). */
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

/**
 * The access token a client holds while it is good for longer than the library's refresh margin:
 * what getAccessToken() would answer (OAuth2Client.isTokenExpiring), read without its promise.
 * Undefined when there is none yet or it is about to expire: getAccessToken() then fetches one.
 */
function freshToken(client: JWT): string | undefined {
  const { access_token: token, expiry_date: expiry } = client.credentials;
  return token && (!expiry || expiry > Date.now() + client.eagerRefreshThresholdMillis) ? token : undefined;
}

/**
 * The JWT client hands its transporter to gtoken, which POSTs the assertion through
 * `transporter.request()` to the hard-coded Google URL. This interceptor rewrites only that URL to
 * GOOGLE_TOKEN_URL: production is unchanged (same URL by default) and tests reach the fake. A
 * transporter per client, because google-auth-library adds its own interceptors to the one given.
 */
function tokenTransporter(timeoutMs: number, target: string): Gaxios {
  // Node's own fetch (as for the sends) rather than gaxios' default, a dynamic import of the
  // ESM-only node-fetch: one HTTP stack, and one that also loads where dynamic import cannot.
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

/** FCM v1 status + error body -> outcome (Firebase "FCM error codes" reference). */
export function outcomeOf(status: number, text: string, retryAfter: string | string[] | undefined): DeliveryOutcome {
  if (status >= 200 && status < 300) return { kind: 'accepted' };
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
