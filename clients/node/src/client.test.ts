import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { PushApiError, PushClient, retryAfterMs, type RetryOptions } from './index';

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}
type Answer = { status: number; headers?: Record<string, string>; body?: unknown };

/** A real HTTP server on a loopback port: answers from a queue, records what it was sent. */
let server: Server;
let baseUrl: string;
let answers: (Answer | ((seen: Seen) => Answer))[] = [];
let seen: Seen[] = [];

beforeAll(async () => {
  server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      const request = { method: req.method!, url: req.url!, headers: req.headers, body };
      seen.push(request);
      const next = answers.shift() ?? { status: 500, body: { message: 'No answer queued.' } };
      const answer = typeof next === 'function' ? next(request) : next;
      res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
      res.end(answer.body === undefined ? undefined : typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
beforeEach(() => {
  answers = [];
  seen = [];
});

/** A client whose waits are recorded, not waited: no test sleeps. */
const client = (retry: RetryOptions = {}) => {
  const waits: number[] = [];
  const sdk = new PushClient({ baseUrl, token: 'pns_test', retry: { sleep: async (ms) => void waits.push(ms), ...retry } });
  return { sdk, waits };
};
const accepted = { status: 202, body: { data: { id: 'n1' } } };
const send = { recipients: { user_ids: ['u1'] }, notification: { title: 'Hi', body: 'There' } };

describe('PushClient', () => {
  it('sends the bearer token and JSON, and answers the parsed body', async () => {
    answers.push(accepted);
    const { sdk } = client();
    expect(await sdk.notifications.send(send)).toEqual({ data: { id: 'n1' } });
    expect(seen[0]).toMatchObject({ method: 'POST', url: '/api/v1/notifications' });
    expect(seen[0].headers).toMatchObject({ authorization: 'Bearer pns_test', 'content-type': 'application/json' });
    expect(JSON.parse(seen[0].body)).toEqual(send);
  });

  it('puts a fresh Idempotency-Key on every send, keeps a given one, and repeats the same key on a retry', async () => {
    answers.push(accepted, accepted, { status: 503, body: { message: 'Service Unavailable.' } }, accepted);
    const { sdk } = client();
    await sdk.notifications.send(send);
    await sdk.notifications.send(send, { headers: { 'idempotency-key': 'mine' } });
    await sdk.notifications.send(send);
    const keys = seen.map((s) => s.headers['idempotency-key']);
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(keys[1]).toBe('mine');
    expect(keys[2]).toMatch(/^[0-9a-f-]{36}$/);
    expect(keys[3]).toBe(keys[2]);
    expect(new Set([keys[0], keys[2]]).size).toBe(2);
  });

  it('retries a 429 after its Retry-After in seconds, and a 5xx after one as an HTTP date', async () => {
    const now = Date.parse('2026-11-29T12:00:00Z');
    answers.push(
      { status: 429, headers: { 'retry-after': '7' }, body: { message: 'Too Many Attempts.' } },
      { status: 503, headers: { 'retry-after': new Date(now + 12_000).toUTCString() }, body: { message: 'Service Unavailable.' } },
      { status: 200, body: { data: { id: 'app' } } },
    );
    const { sdk, waits } = client({ now: () => now });
    expect(await sdk.app.get()).toEqual({ data: { id: 'app' } });
    expect(waits).toEqual([7000, 12_000]);
    expect(seen).toHaveLength(3);
  });

  it('backs off exponentially without Retry-After and gives up after maxAttempts with the last error', async () => {
    answers.push(...[1, 2, 3, 4].map(() => ({ status: 502, body: { message: 'Bad Gateway.' } })));
    const { sdk, waits } = client({ maxAttempts: 4, baseDelayMs: 100 });
    await expect(sdk.installations.get('i1')).rejects.toMatchObject({ name: 'PushApiError', status: 502, message: 'Bad Gateway.' });
    expect(waits).toEqual([100, 200, 400]);
    expect(seen).toHaveLength(4);
  });

  it('does not wait longer than maxDelayMs: a longer Retry-After throws at once', async () => {
    answers.push({ status: 429, headers: { 'retry-after': '3600' }, body: { message: 'Too Many Attempts.' } });
    const { sdk, waits } = client({ maxDelayMs: 60_000 });
    await expect(sdk.topics.list()).rejects.toMatchObject({ status: 429 });
    expect(waits).toEqual([]);
  });

  it('does not repeat a POST without an Idempotency-Key after a 5xx (it may have been done), but does after a 429', async () => {
    answers.push({ status: 500, headers: { 'x-error-id': 'e1' }, body: { message: 'Server Error.' } });
    const { sdk } = client();
    const error = await sdk.liveActivityChannels.create({ storage: 'none' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PushApiError);
    expect(error).toMatchObject({ status: 500, errorId: 'e1' });
    expect(seen).toHaveLength(1);
    answers.push({ status: 429, headers: { 'retry-after': '1' }, body: { message: 'Too Many Attempts.' } }, { status: 201, body: { data: null } });
    await sdk.liveActivityChannels.create({ storage: 'none' });
    expect(seen).toHaveLength(3);
  });

  it('throws PushApiError with the 422 errors map and the request id, without retrying', async () => {
    const body = { message: 'The recipients field is required.', errors: { recipients: ['The recipients field is required.'] } };
    answers.push({ status: 422, headers: { 'x-request-id': 'r1' }, body });
    const { sdk } = client();
    const error = (await sdk.notifications.send({} as never).catch((e: unknown) => e)) as PushApiError;
    expect(error).toBeInstanceOf(PushApiError);
    expect(error).toBeInstanceOf(Error);
    expect({ status: error.status, message: error.message, errors: error.errors, requestId: error.requestId, body: error.body }).toEqual({
      status: 422,
      message: body.message,
      errors: body.errors,
      requestId: 'r1',
      body,
    });
    expect(seen).toHaveLength(1);
  });

  it('keeps a body that is not JSON as text', async () => {
    answers.push({ status: 404, headers: { 'content-type': 'text/html' }, body: '<h1>Not here</h1>' });
    const { sdk } = client();
    await expect(sdk.topics.get('news')).rejects.toMatchObject({ status: 404, message: 'HTTP 404', body: '<h1>Not here</h1>', errors: undefined });
  });

  it('answers undefined for a 204 and encodes path segments', async () => {
    answers.push({ status: 200, body: { data: {} } }, { status: 204 });
    const { sdk } = client();
    expect(await sdk.users.preferences.get('a/b c')).toEqual({ data: {} });
    expect(await sdk.installations.delete('i 1')).toBeUndefined();
    expect(seen.map((s) => s.url)).toEqual(['/api/v1/users/a%2Fb%20c/preferences', '/api/v1/installations/i%201']);
  });

  it('iterates every item of a paged list, following next_cursor with the query kept', async () => {
    const page = (ids: string[], next: string | null) => ({ status: 200, body: { data: ids.map((id) => ({ id })), meta: { next_cursor: next } } });
    answers.push(page(['a', 'b'], 'c1'), page([], 'c2'), page(['c'], null));
    const { sdk } = client();
    const ids: string[] = [];
    for await (const notification of sdk.notifications.iterate({ limit: 2 })) ids.push(notification.id);
    expect(ids).toEqual(['a', 'b', 'c']);
    expect(seen.map((s) => s.url)).toEqual([
      '/api/v1/notifications?limit=2',
      '/api/v1/notifications?limit=2&cursor=c1',
      '/api/v1/notifications?limit=2&cursor=c2',
    ]);
  });

  it('retries a connection that fails on a GET', async () => {
    let calls = 0;
    const flaky: typeof fetch = async (input, init) => {
      if (++calls === 1) throw new TypeError('fetch failed');
      return fetch(input, init);
    };
    answers.push({ status: 200, body: { data: [] } });
    const waits: number[] = [];
    const sdk = new PushClient({ baseUrl, token: 't', fetch: flaky, retry: { sleep: async (ms) => void waits.push(ms) } });
    expect(await sdk.topics.list()).toEqual({ data: [] });
    expect(waits).toEqual([500]);
  });
});

describe('the inbox stream', () => {
  it('yields each event with its id and JSON data, across chunk boundaries, skipping comments and retry:', async () => {
    const { sdk } = client();
    const chunks = [
      'retry: 2000\n\nid: 0\nevent: unread\nda',
      'ta: {"unread":1}\r\n\r\n: keep-alive\n\n',
      'id: m1\nevent: message\ndata: {"id":"m1","title":"Hi"}\n\n',
    ];
    const streamServer = createServer((req, res) => {
      seen.push({ method: req.method!, url: req.url!, headers: req.headers, body: '' });
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      // Each chunk is flushed on its own; the connection stays open as the service's does.
      for (const chunk of chunks) res.write(chunk);
    });
    await new Promise<void>((resolve) => streamServer.listen(0, '127.0.0.1', resolve));
    const streaming = new PushClient({ baseUrl: `http://127.0.0.1:${(streamServer.address() as AddressInfo).port}`, token: 't' });
    const events = [];
    for await (const event of streaming.users.inbox.stream('u 1')) {
      events.push(event);
      if (events.length === 2) break;
    }
    streamServer.closeAllConnections();
    await new Promise<void>((resolve) => streamServer.close(() => resolve()));
    expect(events).toEqual([
      { event: 'unread', id: '0', data: { unread: 1 } },
      { event: 'message', id: 'm1', data: { id: 'm1', title: 'Hi' } },
    ]);
    expect(seen[0]).toMatchObject({ url: '/api/v1/users/u%201/inbox/stream', headers: { accept: 'text/event-stream', authorization: 'Bearer t' } });
    void sdk;
  });
});

describe('retryAfterMs', () => {
  it('reads seconds and HTTP dates, and ignores what it cannot read', () => {
    const now = Date.parse('2026-11-29T12:00:00Z');
    expect(retryAfterMs('0', now)).toBe(0);
    expect(retryAfterMs('120', now)).toBe(120_000);
    expect(retryAfterMs('Sun, 29 Nov 2026 12:00:30 GMT', now)).toBe(30_000);
    expect(retryAfterMs('Sun, 29 Nov 2026 11:00:00 GMT', now)).toBe(0);
    expect(retryAfterMs(null, now)).toBeNull();
    expect(retryAfterMs('soon', now)).toBeNull();
  });
});
