import { callApi, type Fetch } from './shared/api';

/** A message of the user's inbox, as the service answers it (docs/api.md#inbox). */
export interface InboxMessage {
  id: string;
  notification_id: string;
  user_id: string;
  title: string | null;
  body: string | null;
  image_url: string | null;
  action_url: string | null;
  data: Record<string, unknown> | null;
  topic: string | null;
  created_at: string;
  read_at: string | null;
  archived_at: string | null;
  expires_at: string;
}

export interface InboxPage {
  data: InboxMessage[];
  meta: { next_cursor: string | null; unread: number };
}

/** What `subscribe` tells: a message stored for the user, or the unread count after any change. */
export type InboxEvent = { type: 'message'; message: InboxMessage } | { type: 'unread'; unread: number };

export interface InboxOptions {
  /** The service's public URL (its api must allow this page's origin: CORS_ALLOWED_ORIGINS). */
  baseUrl: string;
  /** A token with `users:self` (docs/api.md#inbox): it only ever acts for one user. */
  token: string;
  userId: string;
  /** HMAC-SHA256 of `userId` under the app's identity secret, from your backend, when identity verification is on. */
  userIdHash?: string;
  /** Replaces the global `fetch` (tests). */
  fetch?: Fetch;
  /** Stream failures before each reconnection; silent by default. */
  onError?: (error: unknown) => void;
}

/** The wait before reconnecting, unless the service says otherwise (`retry:`). */
const RETRY_MS = 2000;
/** Message ids remembered to drop the repeats a reconnection may bring. */
const SEEN_IDS = 500;

/** One user's inbox (docs/api.md#inbox): list, mark, read all, and a live stream that reconnects and catches up. */
export class Inbox {
  private readonly fetcher: Fetch;

  constructor(private readonly options: InboxOptions) {
    for (const key of ['baseUrl', 'token', 'userId'] as const) {
      if (typeof options[key] !== 'string' || options[key] === '') throw new TypeError(`Inbox: ${key} is required`);
    }
    this.fetcher = options.fetch ?? globalThis.fetch.bind(globalThis);
  }

  /** A page, newest first; `state` `unread`, `read`, `archived` or `all` (default: every message not archived). */
  list(query: { state?: 'unread' | 'read' | 'archived' | 'all'; limit?: number; cursor?: string } = {}): Promise<InboxPage> {
    const params = new URLSearchParams();
    for (const [key, value] of Object.entries(query)) if (value !== undefined) params.set(key, String(value));
    const search = params.size > 0 ? `?${params}` : '';
    return this.call('GET', search) as Promise<InboxPage>;
  }

  async markRead(id: string, read = true): Promise<InboxMessage> {
    return ((await this.call('PATCH', `/${encodeURIComponent(id)}`, { read })) as { data: InboxMessage }).data;
  }

  async archive(id: string, archived = true): Promise<InboxMessage> {
    return ((await this.call('PATCH', `/${encodeURIComponent(id)}`, { archived })) as { data: InboxMessage }).data;
  }

  /** Marks every unread message read; how many. */
  async readAll(): Promise<number> {
    return ((await this.call('POST', '/read-all')) as { data: { updated: number } }).data.updated;
  }

  /**
   * Calls `callback` with each stored message and each new unread count, as they happen on any
   * device; reconnects when the connection drops, asking for what it missed (`Last-Event-ID`).
   * Returns the function that stops it.
   */
  subscribe(callback: (event: InboxEvent) => void): () => void {
    const stop = new AbortController();
    const seen: string[] = [];
    let lastId: string | undefined;
    let retryMs = RETRY_MS;
    const onEvent = (fields: Record<string, string>) => {
      if (fields.retry && /^\d+$/.test(fields.retry)) retryMs = Number(fields.retry);
      // Any event's id is the stream's position, as EventSource keeps it.
      if (fields.id) lastId = fields.id;
      if (fields.data === undefined) return;
      if (fields.event === 'unread') callback({ type: 'unread', unread: (JSON.parse(fields.data) as { unread: number }).unread });
      if (fields.event !== 'message') return;
      const message = JSON.parse(fields.data) as InboxMessage;
      if (seen.includes(message.id)) return;
      seen.push(message.id);
      if (seen.length > SEEN_IDS) seen.shift();
      callback({ type: 'message', message });
    };
    const run = async () => {
      while (!stop.signal.aborted) {
        try {
          const response = await this.fetcher(this.url('/stream'), {
            headers: { ...this.headers, accept: 'text/event-stream', ...(lastId ? { 'last-event-id': lastId } : {}) },
            credentials: 'omit',
            signal: stop.signal,
          });
          if (!response.ok || !response.body) throw new Error(`inbox stream: HTTP ${response.status}`);
          await readEvents(response.body, onEvent);
        } catch (error) {
          if (stop.signal.aborted) return;
          this.options.onError?.(error);
        }
        if (!stop.signal.aborted) await new Promise((resolve) => setTimeout(resolve, retryMs));
      }
    };
    void run();
    return () => stop.abort();
  }

  private url(path: string): string {
    return `${this.options.baseUrl.replace(/\/+$/, '')}/api/v1/users/${encodeURIComponent(this.options.userId)}/inbox${path}`;
  }

  private get headers(): Record<string, string> {
    return { authorization: `Bearer ${this.options.token}`, ...(this.options.userIdHash ? { 'x-user-id-hash': this.options.userIdHash } : {}) };
  }

  private call(method: 'GET' | 'PATCH' | 'POST', path: string, body?: unknown): Promise<unknown> {
    const { baseUrl, token, userId, userIdHash } = this.options;
    return callApi(
      { baseUrl, token },
      this.fetcher,
      method,
      `/users/${encodeURIComponent(userId)}/inbox${path}`,
      body,
      userIdHash ? { 'x-user-id-hash': userIdHash } : {},
    );
  }
}

/** Reads a text/event-stream body, calling `onEvent` with each event's fields, until it ends. */
async function readEvents(body: ReadableStream<Uint8Array>, onEvent: (fields: Record<string, string>) => void): Promise<void> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffered = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffered += decoder.decode(value, { stream: true }).replace(/\r\n?/g, '\n');
    let end: number;
    while ((end = buffered.indexOf('\n\n')) >= 0) {
      const fields: Record<string, string> = {};
      for (const line of buffered.slice(0, end).split('\n')) {
        if (line === '' || line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const name = colon < 0 ? line : line.slice(0, colon);
        const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
        fields[name] = name in fields && name === 'data' ? `${fields[name]}\n${value}` : value;
      }
      buffered = buffered.slice(end + 2);
      onEvent(fields);
    }
  }
}
