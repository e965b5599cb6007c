import { ApiConfig, apiUrl, authorization, callApi, CurrentUser, Fetch, userHeaders, userPath } from './api';

/** A message of the user's inbox, as the service answers it (docs/api.md#inbox-message). */
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

/**
 * React Native's XMLHttpRequest, as far as the stream uses it: React Native's `fetch` has no
 * streaming body, its XHR grows `responseText` as the answer arrives (readyState 3).
 */
export interface XhrLike {
  readyState: number;
  status: number;
  responseText: string;
  onreadystatechange: (() => void) | null;
  onerror: (() => void) | null;
  open(method: string, url: string): void;
  setRequestHeader(name: string, value: string): void;
  send(): void;
  abort(): void;
}
export type XhrConstructor = new () => XhrLike;

export interface StreamTransport {
  fetch: Fetch;
  /** Used when given (React Native's global); else `fetch` with a streaming body (Node, `expo/fetch`). */
  XMLHttpRequest?: XhrConstructor;
  sleep: (ms: number) => Promise<void>;
  onError: (error: unknown) => void;
}

/** The wait before reconnecting, unless the service says otherwise (`retry:`). */
const RETRY_MS = 2000;
/** Message ids remembered to drop the repeats a reconnection may bring. */
const SEEN_IDS = 500;

/** The current user's inbox (docs/api.md#inbox-routes): list, mark, read all, and a live stream that reconnects and catches up. */
export class InboxApi {
  constructor(
    private readonly api: ApiConfig,
    private readonly transport: StreamTransport,
    private readonly user: () => CurrentUser,
  ) {}

  /** A page, newest first; `state` `unread`, `read`, `archived` or `all` (default: every message not archived). */
  list(query: { state?: 'unread' | 'read' | 'archived' | 'all'; limit?: number; cursor?: string } = {}): Promise<InboxPage> {
    const params = Object.entries(query)
      .filter(([, value]) => value !== undefined)
      .map(([key, value]) => `${encodeURIComponent(key)}=${encodeURIComponent(String(value))}`);
    return this.call('GET', params.length > 0 ? `?${params.join('&')}` : '') as Promise<InboxPage>;
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
   * device (docs/api.md#inbox-stream); reconnects when the connection drops, asking for what it
   * missed (`Last-Event-ID`). Returns the function that stops it.
   */
  subscribe(callback: (event: InboxEvent) => void): () => void {
    const user = this.user();
    let stopped = false;
    let abort = () => {};
    const seen: string[] = [];
    let lastId: string | undefined;
    let retryMs = RETRY_MS;
    const onEvent = (fields: Record<string, string>) => {
      if (fields.retry && /^\d+$/.test(fields.retry)) retryMs = Number(fields.retry);
      // Any event's id is the stream's position, as EventSource keeps it.
      if (fields.id) lastId = fields.id;
      if (fields.data === undefined || stopped) return;
      if (fields.event === 'unread') callback({ type: 'unread', unread: (JSON.parse(fields.data) as { unread: number }).unread });
      if (fields.event !== 'message') return;
      const message = JSON.parse(fields.data) as InboxMessage;
      if (seen.includes(message.id)) return;
      seen.push(message.id);
      if (seen.length > SEEN_IDS) seen.shift();
      callback({ type: 'message', message });
    };
    const run = async () => {
      while (!stopped) {
        const headers = { ...authorization(this.api), ...userHeaders(user), accept: 'text/event-stream', ...(lastId ? { 'last-event-id': lastId } : {}) };
        const url = apiUrl(this.api, userPath(user.userId, '/inbox/stream'));
        const parser = new EventParser(onEvent);
        try {
          const connection = this.transport.XMLHttpRequest
            ? xhrStream(this.transport.XMLHttpRequest, url, headers, parser)
            : fetchStream(this.transport.fetch, url, headers, parser);
          abort = connection.abort;
          await connection.done;
        } catch (error) {
          if (!stopped) this.transport.onError(error);
        }
        if (!stopped) await this.transport.sleep(retryMs);
      }
    };
    void run();
    return () => {
      stopped = true;
      abort();
    };
  }

  private call(method: 'GET' | 'PATCH' | 'POST', path: string, body?: unknown): Promise<unknown> {
    const user = this.user();
    return callApi(this.api, this.transport.fetch, method, userPath(user.userId, `/inbox${path}`), body, userHeaders(user));
  }
}

/** Splits a text/event-stream into events, each as its fields (`event`, `data`, `id`, `retry`). */
export class EventParser {
  private buffered = '';
  constructor(private readonly onEvent: (fields: Record<string, string>) => void) {}

  push(chunk: string): void {
    this.buffered += chunk.replace(/\r\n?/g, '\n');
    let end: number;
    while ((end = this.buffered.indexOf('\n\n')) >= 0) {
      const fields: Record<string, string> = {};
      for (const line of this.buffered.slice(0, end).split('\n')) {
        if (line === '' || line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const name = colon < 0 ? line : line.slice(0, colon);
        const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
        fields[name] = name in fields && name === 'data' ? `${fields[name]}\n${value}` : value;
      }
      this.buffered = this.buffered.slice(end + 2);
      this.onEvent(fields);
    }
  }
}

interface Connection {
  done: Promise<void>;
  abort: () => void;
}

function xhrStream(Xhr: XhrConstructor, url: string, headers: Record<string, string>, parser: EventParser): Connection {
  const xhr = new Xhr();
  let read = 0;
  const done = new Promise<void>((resolve, reject) => {
    xhr.onreadystatechange = () => {
      if (xhr.readyState < 3) return;
      if (xhr.status !== 200) {
        if (xhr.readyState === 4) reject(new Error(`inbox stream: HTTP ${xhr.status}`));
        return;
      }
      parser.push(xhr.responseText.slice(read));
      read = xhr.responseText.length;
      if (xhr.readyState === 4) resolve();
    };
    xhr.onerror = () => reject(new Error('inbox stream: connection failed'));
  });
  xhr.open('GET', url);
  for (const [name, value] of Object.entries(headers)) xhr.setRequestHeader(name, value);
  xhr.send();
  return { done, abort: () => xhr.abort() };
}

function fetchStream(fetcher: Fetch, url: string, headers: Record<string, string>, parser: EventParser): Connection {
  const controller = new AbortController();
  const done = (async () => {
    const response = await fetcher(url, { method: 'GET', headers, signal: controller.signal });
    if (!response.ok || !response.body) throw new Error(`inbox stream: HTTP ${response.status}${response.body ? '' : ' without a streaming body'}`);
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      parser.push(decoder.decode(value, { stream: true }));
    }
  })();
  return { done, abort: () => controller.abort() };
}
