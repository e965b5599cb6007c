import type { components, operations } from './api.generated';

export type { components, operations, paths } from './api.generated';
/** The API's resources by schema name, e.g. `Schemas['NotificationResource']`. */
export type Schemas = components['schemas'];

type JsonOf<R> = R extends { content: { 'application/json': infer J } } ? J : never;
/** The JSON body an operation takes. */
export type RequestBody<K extends keyof operations> = operations[K] extends { requestBody?: { content: { 'application/json': infer B } } } ? B : never;
/** The query parameters an operation takes. */
export type Query<K extends keyof operations> = NonNullable<operations[K]['parameters']['query']>;
/** The success body (200, 201 or 202) of an operation. */
export type Success<K extends keyof operations> = {
  [S in keyof operations[K]['responses']]: S extends 200 | 201 | 202 ? JsonOf<operations[K]['responses'][S]> : never;
}[keyof operations[K]['responses']];
/** A route that answers 204 (no body): undefined. */
export type NoContent<K extends keyof operations> = operations[K]['responses'] extends { 204: unknown } ? void : never;
/** What a route answers in `data`. */
export type Data<K extends keyof operations> = Success<K> extends { data: infer D } ? D : never;
type Item<K extends keyof operations> = Data<K> extends readonly (infer I)[] ? I : never;

export interface RetryOptions {
  /** Attempts in all, the first included (default 3; 1: no retries). */
  maxAttempts?: number;
  /** Wait before a retry without `Retry-After`: baseDelayMs × 2^(retry − 1) (default 500). */
  baseDelayMs?: number;
  /** No wait is longer than this (default 60,000): a longer `Retry-After` is not waited for, the error is thrown. */
  maxDelayMs?: number;
  /** How to wait (tests inject one that does not). */
  sleep?: (ms: number) => Promise<void>;
  /** The clock an HTTP-date `Retry-After` is read against. */
  now?: () => number;
}

export interface PushClientOptions {
  /** The service's origin, e.g. `https://push.example.com`. */
  baseUrl: string;
  /** An API token of your app (`pns_...`). */
  token: string;
  retry?: RetryOptions;
  /** A fetch implementation (default: the global one, Node 20+). */
  fetch?: typeof fetch;
  /** Headers sent on every request (e.g. `X-Request-Id`). */
  headers?: Record<string, string>;
}

/** Per call: headers such as `Idempotency-Key`, `X-User-Id-Hash` or `X-Request-Id`, and an abort signal. */
export interface CallOptions {
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

/** Any answer outside 2xx. `errors` is the 422 map of request paths to sentences (docs/api.md#errors). */
export class PushApiError extends Error {
  override readonly name = 'PushApiError';
  constructor(
    readonly status: number,
    message: string,
    readonly errors: Record<string, string[]> | undefined,
    /** The `X-Request-Id` of the call, on every log line of it. */
    readonly requestId: string | null,
    /** A 500's `X-Error-Id`, under which the details are logged. */
    readonly errorId: string | null,
    /** The parsed body, or its text when it is not JSON. */
    readonly body: unknown,
  ) {
    super(message);
  }
}

const IDEMPOTENT = new Set(['GET', 'PUT', 'PATCH', 'DELETE']);

/** Seconds or an HTTP date, as milliseconds from now; null when absent or unreadable. */
export function retryAfterMs(value: string | null, now: number): number | null {
  if (value === null || value.trim() === '') return null;
  if (/^\s*\d+\s*$/.test(value)) return Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

const sleepFor = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const path = (...parts: string[]) => parts.map(encodeURIComponent).join('/');

interface Request {
  method: string;
  path: string;
  query?: object;
  body?: unknown;
  options?: CallOptions;
  /** A POST that may be repeated without effect (a count, a cancel, an event, read-all): retried like PUT. */
  repeatable?: boolean;
}

/** The transport: bearer token, JSON, retries on 429 and 5xx honouring `Retry-After`, PushApiError. */
class Transport {
  private readonly retry: Required<RetryOptions>;
  private readonly fetch: typeof fetch;

  constructor(private readonly options: PushClientOptions) {
    this.retry = { maxAttempts: 3, baseDelayMs: 500, maxDelayMs: 60_000, sleep: sleepFor, now: Date.now, ...options.retry };
    this.fetch = options.fetch ?? globalThis.fetch;
  }

  async call<T>(request: Request): Promise<T> {
    const response = await this.open(request);
    return (response.status === 204 ? undefined : await response.json()) as T;
  }

  /** The 2xx response, its body unread (a stream's); retried and thrown as for call. */
  async open(request: Request): Promise<Response> {
    const url = new URL(`/api/v1/${request.path}`, this.options.baseUrl);
    for (const [key, value] of Object.entries(request.query ?? {})) if (value !== undefined && value !== null) url.searchParams.set(key, String(value));
    const headers: Record<string, string> = { accept: 'application/json', ...this.options.headers, ...request.options?.headers };
    headers.authorization = `Bearer ${this.options.token}`;
    if (request.body !== undefined) headers['content-type'] = 'application/json';
    const hasKey = Object.keys(headers).some((name) => name.toLowerCase() === 'idempotency-key');
    // A 429 was refused before any work; a 5xx or a lost connection may have done it, so only repeatable requests retry those.
    const repeatable = IDEMPOTENT.has(request.method) || hasKey || request.repeatable === true;
    for (let attempt = 1; ; attempt++) {
      let response: Response;
      try {
        response = await this.fetch(url, {
          method: request.method,
          headers,
          body: request.body === undefined ? undefined : JSON.stringify(request.body),
          signal: request.options?.signal,
        });
      } catch (error) {
        if (!repeatable || attempt >= this.retry.maxAttempts || request.options?.signal?.aborted) throw error;
        await this.retry.sleep(this.backoff(attempt));
        continue;
      }
      if (response.ok) return response;
      const retryable = response.status === 429 || (response.status >= 500 && repeatable);
      if (retryable && attempt < this.retry.maxAttempts) {
        const delay = retryAfterMs(response.headers.get('retry-after'), this.retry.now()) ?? this.backoff(attempt);
        if (delay <= this.retry.maxDelayMs) {
          await response.body?.cancel();
          await this.retry.sleep(delay);
          continue;
        }
      }
      throw await toError(response);
    }
  }

  private backoff(attempt: number): number {
    return Math.min(this.retry.maxDelayMs, this.retry.baseDelayMs * 2 ** (attempt - 1));
  }
}

async function toError(response: Response): Promise<PushApiError> {
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // Not JSON (a proxy's page): kept as text.
  }
  const json = (typeof body === 'object' && body !== null ? body : {}) as { message?: unknown; errors?: Record<string, string[]> };
  const message = typeof json.message === 'string' ? json.message : `HTTP ${response.status}`;
  return new PushApiError(response.status, message, json.errors, response.headers.get('x-request-id'), response.headers.get('x-error-id'), body);
}

/** An event of the inbox stream (docs/api.md#inbox): the unread count, or a message stored for the user. */
export type InboxStreamEvent =
  { event: 'unread'; id: string | null; data: { unread: number } } | { event: 'message'; id: string | null; data: Schemas['InboxMessageResource'] };

/** Server-sent events off a response body: each event's name, id and JSON data; comments (keep-alives) and `retry:` skipped. */
async function* serverSentEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<InboxStreamEvent> {
  const decoder = new TextDecoder();
  let buffer = '';
  let event = { name: 'message', id: null as string | null, data: [] as string[] };
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      buffer += decoder.decode(value, { stream: true });
      const lines = buffer.split(/\r\n|\r|\n/);
      buffer = lines.pop()!;
      for (const line of lines) {
        if (line === '') {
          if (event.data.length > 0) yield { event: event.name, id: event.id, data: JSON.parse(event.data.join('\n')) as unknown } as InboxStreamEvent;
          event = { name: 'message', id: null, data: [] };
          continue;
        }
        if (line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon === -1 ? line : line.slice(0, colon);
        const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (field === 'event') event.name = value;
        else if (field === 'id') event.id = value;
        else if (field === 'data') event.data.push(value);
      }
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}

/** Every item of a cursor-paged list, page after page, until `meta.next_cursor` is null. */
async function* pages<I>(fetchPage: (cursor: string | undefined) => Promise<{ data: readonly I[]; meta: { next_cursor: string | null } }>): AsyncGenerator<I> {
  let cursor: string | undefined;
  do {
    const page = await fetchPage(cursor);
    yield* page.data;
    cursor = page.meta.next_cursor ?? undefined;
  } while (cursor !== undefined);
}

const withKey = (options: CallOptions = {}): CallOptions => {
  const headers = options.headers ?? {};
  if (Object.keys(headers).some((name) => name.toLowerCase() === 'idempotency-key')) return options;
  return { ...options, headers: { ...headers, 'Idempotency-Key': globalThis.crypto.randomUUID() } };
};

/**
 * The service's API (docs/api.md): one method per route, named after the resource. Sends carry an
 * `Idempotency-Key` (a random UUID unless given), so their retries cannot send twice.
 */
export class PushClient {
  readonly #http: Transport;

  constructor(options: PushClientOptions) {
    if (!options.baseUrl) throw new TypeError('PushClient: baseUrl is required');
    if (!options.token) throw new TypeError('PushClient: token is required');
    this.#http = new Transport(options);
  }

  /** GET /api/v1/app: the token's app and its settings. */
  app = {
    get: (options?: CallOptions) => this.#http.call<Success<'App_find'>>({ method: 'GET', path: 'app', options }),
  };

  installations = {
    /** PUT: registers or refreshes (201 created, 200 refreshed). */
    put: (installationId: string, body: RequestBody<'Installations_register'>, options?: CallOptions) =>
      this.#http.call<Success<'Installations_register'>>({ method: 'PUT', path: path('installations', installationId), body, options }),
    patch: (installationId: string, body: RequestBody<'Installations_update'>, options?: CallOptions) =>
      this.#http.call<Success<'Installations_update'>>({ method: 'PATCH', path: path('installations', installationId), body, options }),
    get: (installationId: string, options?: CallOptions) =>
      this.#http.call<Success<'Installations_find'>>({ method: 'GET', path: path('installations', installationId), options }),
    delete: (installationId: string, options?: CallOptions) =>
      this.#http.call<NoContent<'Installations_remove'>>({ method: 'DELETE', path: path('installations', installationId), options }),
  };

  notifications = {
    /** POST /api/v1/notifications with an `Idempotency-Key` (yours when given in options.headers). */
    send: (body: RequestBody<'Notifications_send'>, options?: CallOptions) =>
      this.#http.call<Success<'Notifications_send'>>({ method: 'POST', path: 'notifications', body, options: withKey(options) }),
    get: (id: string, options?: CallOptions) => this.#http.call<Success<'Notifications_find'>>({ method: 'GET', path: path('notifications', id), options }),
    list: (query?: Query<'Notifications_list'>, options?: CallOptions) =>
      this.#http.call<Success<'Notifications_list'>>({ method: 'GET', path: 'notifications', query, options }),
    /** Every notification, newest first, following `next_cursor`. */
    iterate: (query: Omit<Query<'Notifications_list'>, 'cursor'> = {}, options?: CallOptions): AsyncGenerator<Item<'Notifications_list'>> =>
      pages((cursor) => this.notifications.list({ ...query, cursor }, options)),
    cancel: (id: string, options?: CallOptions) =>
      this.#http.call<Success<'Notifications_cancel'>>({ method: 'POST', path: path('notifications', id, 'cancel'), options, repeatable: true }),
    /** POST .../preview: what each platform (or `installation_id`) would receive, without sending. */
    preview: (body: RequestBody<'Preview_send'>, options?: CallOptions) =>
      this.#http.call<Success<'Preview_send'>>({ method: 'POST', path: 'notifications/preview', body, options, repeatable: true }),
    /** POST .../events: a client event (received, displayed, opened) of an installation. */
    recordEvent: (id: string, body: RequestBody<'Notifications_recordEvent'>, options?: CallOptions) =>
      this.#http.call<Success<'Notifications_recordEvent'>>({ method: 'POST', path: path('notifications', id, 'events'), body, options, repeatable: true }),
    deliveries: (id: string, query?: Query<'Notifications_deliveries'>, options?: CallOptions) =>
      this.#http.call<Success<'Notifications_deliveries'>>({ method: 'GET', path: path('notifications', id, 'deliveries'), query, options }),
    iterateDeliveries: (
      id: string,
      query: Omit<Query<'Notifications_deliveries'>, 'cursor'> = {},
      options?: CallOptions,
    ): AsyncGenerator<Item<'Notifications_deliveries'>> => pages((cursor) => this.notifications.deliveries(id, { ...query, cursor }, options)),
  };

  audiences = {
    count: (body: RequestBody<'Audiences_count'>, options?: CallOptions) =>
      this.#http.call<Success<'Audiences_count'>>({ method: 'POST', path: 'audiences/count', body, options, repeatable: true }),
  };

  topics = {
    put: (key: string, body: RequestBody<'Topics_put'>, options?: CallOptions) =>
      this.#http.call<Success<'Topics_put'>>({ method: 'PUT', path: path('topics', key), body, options }),
    get: (key: string, options?: CallOptions) => this.#http.call<Success<'Topics_find'>>({ method: 'GET', path: path('topics', key), options }),
    list: (options?: CallOptions) => this.#http.call<Success<'Topics_list'>>({ method: 'GET', path: 'topics', options }),
    delete: (key: string, options?: CallOptions) => this.#http.call<NoContent<'Topics_remove'>>({ method: 'DELETE', path: path('topics', key), options }),
  };

  templates = {
    put: (key: string, body: RequestBody<'Templates_put'>, options?: CallOptions) =>
      this.#http.call<Success<'Templates_put'>>({ method: 'PUT', path: path('templates', key), body, options }),
    get: (key: string, options?: CallOptions) => this.#http.call<Success<'Templates_find'>>({ method: 'GET', path: path('templates', key), options }),
    version: (key: string, version: number, options?: CallOptions) =>
      this.#http.call<Success<'Templates_version'>>({ method: 'GET', path: path('templates', key, 'versions', String(version)), options }),
    list: (options?: CallOptions) => this.#http.call<Success<'Templates_list'>>({ method: 'GET', path: 'templates', options }),
    delete: (key: string, options?: CallOptions) => this.#http.call<NoContent<'Templates_remove'>>({ method: 'DELETE', path: path('templates', key), options }),
    preview: (key: string, body: RequestBody<'Preview_template'>, options?: CallOptions) =>
      this.#http.call<Success<'Preview_template'>>({ method: 'POST', path: path('templates', key, 'preview'), body, options, repeatable: true }),
  };

  auditLog = {
    /** GET /api/v1/audit-log (`audit:read`): changes to the token's app by operators and the CLI, newest first. */
    list: (query?: Query<'Audit_list'>, options?: CallOptions) => this.#http.call<Success<'Audit_list'>>({ method: 'GET', path: 'audit-log', query, options }),
    /** Every entry matching `query`, newest first, following `next_cursor`. */
    iterate: (query: Omit<Query<'Audit_list'>, 'cursor'> = {}, options?: CallOptions): AsyncGenerator<Item<'Audit_list'>> =>
      pages((cursor) => this.auditLog.list({ ...query, cursor }, options)),
  };

  async *#inboxStream(userId: string, options?: CallOptions): AsyncGenerator<InboxStreamEvent> {
    const headers = { accept: 'text/event-stream', ...options?.headers };
    const response = await this.#http.open({ method: 'GET', path: path('users', userId, 'inbox', 'stream'), options: { ...options, headers } });
    yield* serverSentEvents(response.body!);
  }

  users = {
    preferences: {
      get: (userId: string, options?: CallOptions) =>
        this.#http.call<Success<'Preferences_get'>>({ method: 'GET', path: path('users', userId, 'preferences'), options }),
      update: (userId: string, body: RequestBody<'Preferences_update'>, options?: CallOptions) =>
        this.#http.call<Success<'Preferences_update'>>({ method: 'PATCH', path: path('users', userId, 'preferences'), body, options }),
    },
    inbox: {
      list: (userId: string, query?: Query<'Inbox_list'>, options?: CallOptions) =>
        this.#http.call<Success<'Inbox_list'>>({ method: 'GET', path: path('users', userId, 'inbox'), query, options }),
      iterate: (userId: string, query: Omit<Query<'Inbox_list'>, 'cursor'> = {}, options?: CallOptions): AsyncGenerator<Item<'Inbox_list'>> =>
        pages((cursor) => this.users.inbox.list(userId, { ...query, cursor }, options)),
      mark: (userId: string, id: string, body: RequestBody<'Inbox_mark'>, options?: CallOptions) =>
        this.#http.call<Success<'Inbox_mark'>>({ method: 'PATCH', path: path('users', userId, 'inbox', id), body, options }),
      /** GET .../inbox/stream: the events as they happen, until the loop breaks or options.signal aborts. */
      stream: (userId: string, options?: CallOptions): AsyncGenerator<InboxStreamEvent> => this.#inboxStream(userId, options),
      readAll: (userId: string, options?: CallOptions) =>
        this.#http.call<Success<'Inbox_readAll'>>({ method: 'POST', path: path('users', userId, 'inbox', 'read-all'), options, repeatable: true }),
    },
  };

  liveActivities = {
    put: (activityId: string, body: RequestBody<'LiveActivities_register'>, options?: CallOptions) =>
      this.#http.call<Success<'LiveActivities_register'>>({ method: 'PUT', path: path('live-activities', activityId), body, options }),
    get: (activityId: string, options?: CallOptions) =>
      this.#http.call<Success<'LiveActivities_find'>>({ method: 'GET', path: path('live-activities', activityId), options }),
    delete: (activityId: string, options?: CallOptions) =>
      this.#http.call<NoContent<'LiveActivities_remove'>>({ method: 'DELETE', path: path('live-activities', activityId), options }),
    /** POST .../updates (an update or the end), with an `Idempotency-Key` unless given. */
    update: (activityId: string, body: RequestBody<'LiveActivities_update'>, options?: CallOptions) =>
      this.#http.call<Success<'LiveActivities_update'>>({
        method: 'POST',
        path: path('live-activities', activityId, 'updates'),
        body,
        options: withKey(options),
      }),
    getUpdate: (activityId: string, id: string, options?: CallOptions) =>
      this.#http.call<Success<'LiveActivities_findUpdate'>>({ method: 'GET', path: path('live-activities', activityId, 'updates', id), options }),
  };

  liveActivityChannels = {
    create: (body: RequestBody<'LiveActivityChannels_create'>, options?: CallOptions) =>
      this.#http.call<Success<'LiveActivityChannels_create'>>({ method: 'POST', path: 'live-activity-channels', body, options }),
    list: (options?: CallOptions) => this.#http.call<Success<'LiveActivityChannels_list'>>({ method: 'GET', path: 'live-activity-channels', options }),
    delete: (id: string, options?: CallOptions) =>
      this.#http.call<NoContent<'LiveActivityChannels_remove'>>({ method: 'DELETE', path: path('live-activity-channels', id), options }),
    /** POST .../updates: a broadcast, with an `Idempotency-Key` unless given. */
    broadcast: (id: string, body: RequestBody<'LiveActivityChannels_broadcast'>, options?: CallOptions) =>
      this.#http.call<Success<'LiveActivityChannels_broadcast'>>({
        method: 'POST',
        path: path('live-activity-channels', id, 'updates'),
        body,
        options: withKey(options),
      }),
    getBroadcast: (id: string, broadcastId: string, options?: CallOptions) =>
      this.#http.call<Success<'LiveActivityChannels_findBroadcast'>>({
        method: 'GET',
        path: path('live-activity-channels', id, 'updates', broadcastId),
        options,
      }),
  };
}
