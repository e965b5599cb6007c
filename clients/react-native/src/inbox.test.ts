import { beforeEach, describe, expect, it } from 'vitest';
import { PushClient, type InboxEvent, type PushClientOptions } from './index';
import { FakeFetch, FakeFirebaseMessaging, FakeXhr, MemoryStorage } from './testing/fakes';
import type { Fetch, ResponseLike } from './api';

const HASH = 'a'.repeat(64);
const message = (id: string) => ({
  id,
  notification_id: 'n-1',
  user_id: 'alice/1',
  title: id,
  body: 'b',
  image_url: null,
  action_url: null,
  data: null,
  topic: null,
  created_at: '2026-11-20T10:00:00Z',
  read_at: null,
  archived_at: null,
  expires_at: '2027-02-18T10:00:00Z',
});
const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('inbox and preferences', () => {
  let api: FakeFetch;
  let sleeps: number[];
  const init = (extra: Partial<PushClientOptions> = {}) =>
    PushClient.init({
      baseUrl: 'https://push.example.com',
      token: 'pns_client',
      storage: new MemoryStorage(),
      messaging: new FakeFirebaseMessaging('ios', 'ab'.repeat(32), 'fcm'),
      platform: 'ios',
      fetch: api.fetch,
      XMLHttpRequest: FakeXhr,
      sleep: async (ms) => void sleeps.push(ms),
      ...extra,
    });

  beforeEach(() => {
    api = new FakeFetch();
    sleeps = [];
    FakeXhr.opened.length = 0;
  });

  it("act for setUser's user, with X-User-Id-Hash when a hash was given (docs/api.md#user-access)", async () => {
    const push = await init();
    await expect(push.preferences.get()).rejects.toThrow('call setUser');
    expect(() => push.inbox.subscribe(() => {})).toThrow('call setUser');
    await push.setUser('alice/1', HASH);
    const preferences = { user_id: 'alice/1', topics: { deals: { subscribed: false, source: 'user' } }, channels: { push: true, inbox: true } };
    api.answer(
      { status: 200, body: { data: preferences } },
      { status: 200, body: { data: preferences } },
      { status: 200, body: { data: [message('m-1')], meta: { next_cursor: null, unread: 1 } } },
      { status: 200, body: { data: message('m-1') } },
      { status: 200, body: { data: message('m-1') } },
      { status: 200, body: { data: { updated: 3 } } },
    );
    await expect(push.preferences.get()).resolves.toEqual(preferences);
    await expect(push.preferences.update({ topics: { deals: false }, channels: { push: null } })).resolves.toEqual(preferences);
    await expect(push.inbox.list({ state: 'unread', limit: 10 })).resolves.toMatchObject({ meta: { unread: 1 } });
    await push.inbox.markRead('m-1');
    await push.inbox.archive('m-1');
    await expect(push.inbox.readAll()).resolves.toBe(3);
    const base = 'https://push.example.com/api/v1/users/alice%2F1';
    expect(api.sent.map((r) => [r.method, r.url, r.body])).toEqual([
      ['GET', `${base}/preferences`, undefined],
      ['PATCH', `${base}/preferences`, { topics: { deals: false }, channels: { push: null } }],
      ['GET', `${base}/inbox?state=unread&limit=10`, undefined],
      ['PATCH', `${base}/inbox/m-1`, { read: true }],
      ['PATCH', `${base}/inbox/m-1`, { archived: true }],
      ['POST', `${base}/inbox/read-all`, undefined],
    ]);
    for (const request of api.sent) expect(request.headers).toMatchObject({ authorization: 'Bearer pns_client', 'x-user-id-hash': HASH });
  });

  it("subscribe reads the stream through React Native's XMLHttpRequest, in pieces, and reconnects from the last id without repeats", async () => {
    const push = await init();
    await push.setUser('alice/1', HASH);
    const events: InboxEvent[] = [];
    const stop = push.inbox.subscribe((event) => events.push(event));
    const first = FakeXhr.opened[0];
    expect(first.url).toBe('https://push.example.com/api/v1/users/alice%2F1/inbox/stream');
    expect(first.headers).toEqual({ authorization: 'Bearer pns_client', 'x-user-id-hash': HASH, accept: 'text/event-stream' });
    first.receive('retry: 1500\n\nid: 0\nevent: unread\ndata: {"unr');
    first.receive('ead":0}\n\n: keep-alive\n\n');
    first.receive(`id: m-1\nevent: message\ndata: ${JSON.stringify(message('m-1'))}\n\n`, 200, true);
    await settle();
    expect(sleeps).toEqual([1500]);
    const second = FakeXhr.opened[1];
    expect(second.headers['last-event-id']).toBe('m-1');
    second.receive(`id: m-1\nevent: message\ndata: ${JSON.stringify(message('m-1'))}\n\nevent: unread\ndata: {"unread":1}\n\n`);
    expect(events).toEqual([
      { type: 'unread', unread: 0 },
      { type: 'message', message: message('m-1') },
      { type: 'unread', unread: 1 },
    ]);
    stop();
    expect(second.aborted).toBe(true);
  });

  it('reports a refused stream and tries again', async () => {
    const errors: unknown[] = [];
    const push = await init({ onError: (error) => errors.push(error) });
    await push.setUser('alice/1', HASH);
    const stop = push.inbox.subscribe(() => {});
    FakeXhr.opened[0].receive('{"message":"This action is unauthorized."}', 403, true);
    await settle();
    expect(errors).toEqual([new Error('inbox stream: HTTP 403')]);
    expect(FakeXhr.opened).toHaveLength(2);
    stop();
  });

  it('reads the stream through fetch where there is no XMLHttpRequest (Node, expo/fetch)', async () => {
    const chunks = ['id: 0\nevent: unread\ndata: {"unread":2}\n', '\n'];
    const streaming: Fetch = async (_url, init): Promise<ResponseLike> => {
      const encoder = new TextEncoder();
      let i = 0;
      return {
        ok: true,
        status: 200,
        text: async () => '',
        body: {
          getReader: () => ({
            read: () =>
              i < chunks.length
                ? Promise.resolve({ done: false, value: encoder.encode(chunks[i++]) })
                : new Promise((_resolve, reject) => init.signal?.addEventListener('abort', () => reject(new Error('aborted')))),
          }),
        },
      };
    };
    const push = await init({ fetch: streaming, XMLHttpRequest: null });
    await push.setUser('alice/1', HASH);
    const events: InboxEvent[] = [];
    const stop = push.inbox.subscribe((event) => events.push(event));
    await settle();
    expect(events).toEqual([{ type: 'unread', unread: 2 }]);
    stop();
  });
});
