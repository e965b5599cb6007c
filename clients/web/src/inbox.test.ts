import { afterEach, describe, expect, it, vi } from 'vitest';
import { Inbox, type InboxEvent } from './inbox';
import { FakeFetch } from './testing/fakes';

const MESSAGE = (id: string) => ({
  id,
  notification_id: 'n-1',
  user_id: 'user 1',
  title: 'Shipped',
  body: 'On its way',
  image_url: null,
  action_url: null,
  data: null,
  topic: null,
  created_at: '2026-11-29T08:00:00.000Z',
  read_at: null,
  archived_at: null,
  expires_at: '2027-02-27T08:00:00.000Z',
});

/** A stream answer whose body the test writes, a chunk at a time, then closes. */
function streamAnswer() {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const body = new ReadableStream<Uint8Array>({ start: (c) => void (controller = c) });
  const encoder = new TextEncoder();
  return {
    response: new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream' } }),
    write: (text: string) => controller.enqueue(encoder.encode(text)),
    close: () => controller.close(),
  };
}

describe('Inbox (docs/api.md#inbox)', () => {
  afterEach(() => vi.useRealTimers());

  const inbox = (api: FakeFetch, extra: Partial<ConstructorParameters<typeof Inbox>[0]> = {}) =>
    new Inbox({ baseUrl: 'https://push.example.com/', token: 'pns_self', userId: 'user 1', fetch: api.fetch, ...extra });

  it('lists, marks read, archives and reads all for its user, with the bearer token and X-User-Id-Hash', async () => {
    const api = new FakeFetch();
    api.answer(
      { status: 200, body: { data: [MESSAGE('m-1')], meta: { next_cursor: null, unread: 1 } } },
      { status: 200, body: { data: { ...MESSAGE('m-1'), read_at: '2026-11-29T08:01:00.000Z' } } },
      { status: 200, body: { data: { ...MESSAGE('m-1'), archived_at: '2026-11-29T08:02:00.000Z' } } },
      { status: 200, body: { data: { updated: 3 } } },
    );
    const box = inbox(api, { userIdHash: 'abc123' });
    expect((await box.list({ state: 'unread', limit: 10 })).meta.unread).toBe(1);
    expect((await box.markRead('m-1')).read_at).not.toBeNull();
    expect((await box.archive('m-1')).archived_at).not.toBeNull();
    expect(await box.readAll()).toBe(3);
    expect(api.sent.map((r) => `${r.method} ${r.url}`)).toEqual([
      'GET https://push.example.com/api/v1/users/user%201/inbox?state=unread&limit=10',
      'PATCH https://push.example.com/api/v1/users/user%201/inbox/m-1',
      'PATCH https://push.example.com/api/v1/users/user%201/inbox/m-1',
      'POST https://push.example.com/api/v1/users/user%201/inbox/read-all',
    ]);
    expect(api.sent.map((r) => r.body)).toEqual([undefined, { read: true }, { archived: true }, undefined]);
    for (const r of api.sent) expect(r.headers).toMatchObject({ authorization: 'Bearer pns_self', 'x-user-id-hash': 'abc123' });
  });

  it('refuses a refusal: PushApiError with the status', async () => {
    const api = new FakeFetch();
    api.answer({ status: 404, body: { message: 'Not Found' } });
    await expect(inbox(api).markRead('nope')).rejects.toMatchObject({ name: 'PushApiError', status: 404 });
  });

  it('subscribe: messages and unread counts as they come; reconnects with Last-Event-ID and drops repeats', async () => {
    vi.useFakeTimers();
    const first = streamAnswer();
    const second = streamAnswer();
    const requests: { url: string; headers: Record<string, string> }[] = [];
    const answers = [first.response, second.response];
    const fetcher = vi.fn(async (url: string, init: RequestInit = {}) => {
      requests.push({ url, headers: init.headers as Record<string, string> });
      return answers.shift()!;
    }) as unknown as typeof fetch;
    const events: InboxEvent[] = [];
    const stop = new Inbox({ baseUrl: 'https://push.example.com', token: 't', userId: 'u', fetch: fetcher }).subscribe((e) => events.push(e));

    await vi.waitFor(() => expect(requests).toHaveLength(1));
    expect(requests[0].url).toBe('https://push.example.com/api/v1/users/u/inbox/stream');
    expect(requests[0].headers).not.toHaveProperty('last-event-id');
    first.write('retry: 50\n\nid: 0\nevent: unread\ndata: {"unread":0}\n\n: keep-alive\n\n');
    first.write(`id: m-1\nevent: message\ndata: ${JSON.stringify(MESSAGE('m-1'))}\n\nevent: un`);
    first.write('read\r\ndata: {"unread":1}\r\n\r\n');
    await vi.waitFor(() => expect(events).toHaveLength(3));
    first.close();

    await vi.advanceTimersByTimeAsync(50);
    await vi.waitFor(() => expect(requests).toHaveLength(2));
    expect(requests[1].headers['last-event-id']).toBe('m-1');
    second.write(`id: m-1\nevent: message\ndata: ${JSON.stringify(MESSAGE('m-1'))}\n\n`);
    second.write(`id: m-2\nevent: message\ndata: ${JSON.stringify(MESSAGE('m-2'))}\n\nevent: unread\ndata: {"unread":2}\n\n`);
    await vi.waitFor(() => expect(events).toHaveLength(5));
    expect(events).toEqual([
      { type: 'unread', unread: 0 },
      { type: 'message', message: MESSAGE('m-1') },
      { type: 'unread', unread: 1 },
      { type: 'message', message: MESSAGE('m-2') },
      { type: 'unread', unread: 2 },
    ]);
    stop();
    second.close();
    await vi.advanceTimersByTimeAsync(1000);
    expect(requests).toHaveLength(2);
  });

  it("subscribe: reconnects from the position of the stream's first event when no message came (Last-Event-ID 0)", async () => {
    vi.useFakeTimers();
    const first = streamAnswer();
    const second = streamAnswer();
    const requests: Record<string, string>[] = [];
    const answers = [first.response, second.response];
    const fetcher = vi.fn(async (_url: string, init: RequestInit = {}) => {
      requests.push(init.headers as Record<string, string>);
      return answers.shift()!;
    }) as unknown as typeof fetch;
    const stop = new Inbox({ baseUrl: 'https://push.example.com', token: 't', userId: 'u', fetch: fetcher }).subscribe(() => undefined);
    await vi.waitFor(() => expect(requests).toHaveLength(1));
    first.write('id: 0\nevent: unread\ndata: {"unread":0}\n\n');
    first.close();
    await vi.advanceTimersByTimeAsync(2000);
    await vi.waitFor(() => expect(requests).toHaveLength(2));
    expect(requests[1]['last-event-id']).toBe('0');
    stop();
    second.close();
  });

  it('subscribe: retries after a refused or failed connection, telling onError', async () => {
    vi.useFakeTimers();
    const api = new FakeFetch();
    api.answer({ status: 503, body: { message: 'Service Unavailable' } }, 'network-error');
    const errors: unknown[] = [];
    const stop = inbox(api, { onError: (e) => errors.push(e) }).subscribe(() => undefined);
    await vi.waitFor(() => expect(errors).toHaveLength(1));
    await vi.advanceTimersByTimeAsync(2000);
    await vi.waitFor(() => expect(errors).toHaveLength(2));
    stop();
    expect(String(errors[0])).toContain('503');
  });

  it('needs baseUrl, token and userId', () => {
    expect(() => new Inbox({ baseUrl: 'https://x', token: '', userId: 'u' })).toThrow('Inbox: token is required');
  });
});
