import { Injectable, OnModuleDestroy, Optional } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { FailureReason } from '../../common/vocabulary';
import { EnvironmentVariables } from '../../config/env';
import type { HmsCredentials } from '../../credentials/hms.credentials';
import { ProviderCredentials } from '../../credentials/provider-credentials';
import { MetricsService } from '../../metrics/metrics.service';
import { Destination, destinationOf, OriginTransport } from './origin-transport';
import { atHost, PROVIDER_TIMEOUT_MS, retryAfterMs, retryOutcome, transportReason } from './provider-http';
import { hmsBody, PushContent } from './payloads';
import { CHECK_CONTENT, CredentialCheck, DeliveryOutcome, DeliveryTarget, MADE_UP_TOKEN, PushProvider } from './push-provider';

/** Huawei takes at most this many tokens in one request. */
export const HMS_MAX_TOKENS = 1000;
/** A token is renewed this long before Huawei says it expires. */
const TOKEN_MARGIN_MS = 5 * 60_000;

export const HMS_SUCCESS = '80000000';
export const HMS_PARTIAL = '80100000';
const HMS_ALL_TOKENS_INVALID = '80300007';
const HMS_TOO_LARGE = '80300008';
const HMS_AUTH_CODES = new Set(['80200001', '80200003']);
const HMS_RETRY_CODES = new Set(['80600003', '81000001']);

const HMS_FIELDS = ['content-type', 'application/json; charset=UTF-8'] as const;

interface HmsAnswerBody {
  code?: unknown;
  msg?: unknown;
  requestId?: unknown;
}

/** Sends waiting for the same request: one content, one app, at most HMS_MAX_TOKENS. */
interface Batch {
  hms: HmsCredentials;
  content: PushContent;
  tokens: string[];
  settle: ((outcome: DeliveryOutcome) => void)[];
}

interface AccessToken {
  value: string;
  bearer: string;
  renewAt: number;
}

/** The answer to one request, for every token in it. */
export type RequestOutcome = { each: DeliveryOutcome; illegal?: Set<string>; illegalReason?: string } | typeof UNAUTHORIZED;

export const UNAUTHORIZED = Symbol('unauthorized');

/**
 * Huawei Push Kit (docs/api.md#huawei): OAuth 2.0 client-credentials tokens, cached per client and
 * renewed before they expire; the sends of one content made at once share a request of up to 1,000
 * tokens, whose answer still tells each token's outcome (80100000 lists the illegal ones).
 * HTTP/2 where Huawei's origin negotiates it (docs/decisions/0020-provider-http2-negotiated-per-origin.md).
 */
@Injectable()
export class HmsProvider implements PushProvider, OnModuleDestroy {
  readonly platform = 'huawei' as const;
  /** Huawei checks a `validate_only` message and delivers nothing. */
  readonly validatesDryRun = true;
  timeoutMs = PROVIDER_TIMEOUT_MS;

  private readonly transport = new OriginTransport();
  private readonly tokens = new Map<string, AccessToken>();
  private readonly fetching = new Map<string, Promise<AccessToken | DeliveryOutcome>>();
  private readonly open = new Map<PushContent, Batch[]>();
  private flushScheduled = false;

  constructor(
    private readonly config: EnvironmentVariables,
    @Optional() private readonly metrics?: MetricsService,
  ) {}

  configured(credentials: ProviderCredentials): boolean {
    return credentials.hms !== null;
  }

  send(credentials: ProviderCredentials, content: PushContent, target: DeliveryTarget): Promise<DeliveryOutcome> {
    const hms = credentials.hms;
    if (!hms) return Promise.resolve({ kind: 'failed', reason: FailureReason.HmsNotConfigured });
    if (!target.pushToken) return Promise.resolve({ kind: 'failed', reason: FailureReason.MissingRegistrationToken });
    return new Promise((resolve) => this.enqueue(hms, content, target.pushToken!, resolve));
  }

  /** Joins an open batch of the same content and app, sent once the calls made now have all joined. */
  private enqueue(hms: HmsCredentials, content: PushContent, token: string, settle: (outcome: DeliveryOutcome) => void): void {
    let batches = this.open.get(content);
    if (!batches) this.open.set(content, (batches = []));
    let batch = batches.find((b) => b.hms === hms && b.tokens.length < HMS_MAX_TOKENS);
    if (!batch) batches.push((batch = { hms, content, tokens: [], settle: [] }));
    batch.tokens.push(token);
    batch.settle.push(settle);
    if (!this.flushScheduled) {
      this.flushScheduled = true;
      setImmediate(() => this.flush());
    }
  }

  private flush(): void {
    this.flushScheduled = false;
    const batches = [...this.open.values()].flat();
    this.open.clear();
    for (const batch of batches) void this.sendBatch(batch);
  }

  private async sendBatch(batch: Batch): Promise<void> {
    let answer: RequestOutcome;
    try {
      answer = await this.request(batch.hms, hmsBody(batch.content, batch.tokens));
      // The token was revoked or expired early: once more with a freshly fetched one.
      if (answer === UNAUTHORIZED) answer = await this.request(batch.hms, hmsBody(batch.content, batch.tokens));
    } catch (error) {
      answer = { each: retryOutcome(transportReason(error)) };
    }
    const settled: RequestOutcome = answer === UNAUTHORIZED ? { each: { kind: 'failed', reason: 'Unauthorized' } } : answer;
    batch.tokens.forEach((token, i) => {
      const illegal = settled.illegal?.has(token);
      batch.settle[i](illegal ? { kind: 'invalid', reason: settled.illegalReason ?? HMS_PARTIAL } : settled.each);
    });
  }

  private async request(hms: HmsCredentials, body: string): Promise<RequestOutcome> {
    const token = await this.accessToken(hms);
    if (!('bearer' in token)) return { each: token };
    const to = this.destination(hms);
    const answer = await this.transport.post(to, HMS_FIELDS, token.bearer, body, this.timeoutMs);
    this.metrics?.recordProviderAnswer('hms', 'status' in answer ? answer.status : undefined);
    if ('failure' in answer) return { each: retryOutcome(atHost(answer.failure, to.url)) };
    const outcome = hmsOutcomeOf(answer.status, answer.body, answer.headers['retry-after']);
    if (outcome === UNAUTHORIZED) {
      // Only the token Huawei refused is dropped: one token request per burst of refusals.
      if (this.tokens.get(clientKey(hms))?.value === token.value) this.tokens.delete(clientKey(hms));
    }
    return outcome;
  }

  /** The client's access token, fetched once for all the sends that want it now, renewed TOKEN_MARGIN_MS before it expires. */
  private accessToken(hms: HmsCredentials): Promise<AccessToken | DeliveryOutcome> {
    const key = clientKey(hms);
    const cached = this.tokens.get(key);
    if (cached && cached.renewAt > Date.now()) return Promise.resolve(cached);
    let fetching = this.fetching.get(key);
    if (!fetching) {
      fetching = this.fetchToken(hms).then((result) => {
        this.fetching.delete(key);
        if ('bearer' in result) this.tokens.set(key, result);
        return result;
      });
      this.fetching.set(key, fetching);
    }
    return fetching;
  }

  private async fetchToken(hms: HmsCredentials): Promise<AccessToken | DeliveryOutcome> {
    const url = new URL(this.config.HMS_TOKEN_URL);
    let response: Response;
    try {
      response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'client_credentials', client_id: hms.clientId, client_secret: hms.clientSecret }).toString(),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (error) {
      return retryOutcome(`TokenEndpoint:${atHost(transportReason(error), url)}`);
    }
    const text = await response.text().catch(() => '');
    if (response.status === 429 || response.status >= 500) {
      return retryOutcome(`TokenEndpoint:HTTP ${response.status}`, retryAfterMs(response.headers.get('retry-after')));
    }
    const body = parseJson(text) as { access_token?: unknown; expires_in?: unknown; error?: unknown; sub_error?: unknown } | undefined;
    if (response.status !== 200 || typeof body?.access_token !== 'string') {
      const code = [body?.sub_error, body?.error].find((value): value is number | string => typeof value === 'number' || typeof value === 'string');
      return { kind: 'failed', reason: `OAuth:${code ?? `HTTP ${response.status}`}` };
    }
    const lifetimeMs = (typeof body.expires_in === 'number' && body.expires_in > 0 ? body.expires_in : 3600) * 1000;
    return { value: body.access_token, bearer: `Bearer ${body.access_token}`, renewAt: Date.now() + Math.max(lifetimeMs - TOKEN_MARGIN_MS, lifetimeMs / 2) };
  }

  /** The token exchange, then a `validate_only` send to a made-up token (docs/api.md#credentials-check): any answer but an authorization refusal accepts. */
  async check(credentials: ProviderCredentials): Promise<CredentialCheck> {
    const hms = credentials.hms!;
    const what = `client ${hms.clientId} of app ${hms.appId}`;
    const tokenUrl = new URL(this.config.HMS_TOKEN_URL);
    this.tokens.delete(clientKey(hms));
    const token = await this.accessToken(hms);
    if (!('bearer' in token)) {
      return { ok: false, detail: `${what}: the token exchange at ${tokenUrl.hostname} failed (${token.kind === 'accepted' ? '' : token.reason})` };
    }
    const to = this.destination(hms);
    const content = { id: randomUUID(), ...CHECK_CONTENT, options: { dry_run: true } };
    const answer = await this.transport.post(to, HMS_FIELDS, token.bearer, hmsBody(content, [MADE_UP_TOKEN]), this.timeoutMs);
    if ('failure' in answer) return { ok: false, detail: `${what}: ${atHost(answer.failure, to.url)}` };
    const code = codeOf(answer.body);
    const said = `HTTP ${answer.status}${code ? ` ${code}` : ''}`;
    if (answer.status === 401 || answer.status === 403 || HMS_AUTH_CODES.has(code) || code === '80300002') {
      return { ok: false, detail: `${what}: ${to.url.hostname} refused the credentials (${said})` };
    }
    return { ok: true, detail: `${what}: token exchange and a validate_only send answered by ${to.url.hostname} (${said} for a token no device has)` };
  }

  private destination(hms: HmsCredentials): Destination {
    return destinationOf(new URL(`${this.config.HMS_URL.replace(/\/+$/, '')}/v1/${encodeURIComponent(hms.appId)}/messages:send`));
  }

  get openSessions(): number {
    return this.transport.openSessions;
  }

  onModuleDestroy(): void {
    this.transport.close();
  }
}

const clientKey = (hms: HmsCredentials) => `${hms.clientId}\n${hms.clientSecret}`;

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function codeOf(text: string): string {
  const body = parseJson(text) as HmsAnswerBody | undefined;
  return typeof body?.code === 'string' ? body.code : '';
}

/** The tokens an 80100000 answer's `msg` lists as illegal: HMS Core's `illegal_tokens`, or the newer `illegalTokens` by cause. */
export function illegalTokensOf(msg: unknown): Set<string> {
  const parsed = typeof msg === 'string' ? (parseJson(msg) as Record<string, unknown> | undefined) : undefined;
  const found = new Set<string>();
  const list = parsed?.illegal_tokens;
  if (Array.isArray(list)) for (const token of list) if (typeof token === 'string') found.add(token);
  const byCause = parsed?.illegalTokens;
  if (typeof byCause === 'object' && byCause !== null) {
    for (const tokens of Object.values(byCause)) if (Array.isArray(tokens)) for (const token of tokens) if (typeof token === 'string') found.add(token);
  }
  return found;
}

/** Huawei's HTTP status and result code -> each token's outcome (HMS Core "Result Codes"). */
export function hmsOutcomeOf(status: number, text: string, retryAfter: string | string[] | undefined): RequestOutcome {
  const body = parseJson(text) as HmsAnswerBody | undefined;
  const code = typeof body?.code === 'string' ? body.code : '';
  const requestId = typeof body?.requestId === 'string' ? body.requestId : undefined;
  const accepted: DeliveryOutcome = requestId === undefined ? { kind: 'accepted' } : { kind: 'accepted', providerMessageId: requestId };
  if (status === 200 && code === HMS_SUCCESS) return { each: accepted };
  if (status === 200 && code === HMS_PARTIAL) return { each: accepted, illegal: illegalTokensOf(body?.msg), illegalReason: HMS_PARTIAL };
  if (status === 401 || HMS_AUTH_CODES.has(code)) return UNAUTHORIZED;
  if (code === HMS_ALL_TOKENS_INVALID) return { each: { kind: 'invalid', reason: HMS_ALL_TOKENS_INVALID } };
  if (code === HMS_TOO_LARGE || status === 413) return { each: { kind: 'failed', reason: FailureReason.PayloadTooLarge } };
  const reason = code || `HTTP ${status}`;
  if (status === 429 || status >= 500 || HMS_RETRY_CODES.has(code)) return { each: retryOutcome(reason, retryAfterMs(retryAfter)) };
  return { each: { kind: 'failed', reason } };
}
