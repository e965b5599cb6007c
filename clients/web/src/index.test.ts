import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { browserGlobals, FakeFetch, FakePushManager } from './testing/fakes';

process.env.TZ = 'Europe/Paris';

const VAPID_KEY = 'BEl62iUYgUivxIkv69yViEuiBIa-Ib9-SkvMeAtA3LFgDzkrxZJjSgSnfckjBJuBkr3qBUYIHBQFLXYp5Nksh8U';

/** The SDK as a fresh page load sees it (module state reset; IndexedDB kept by the test). */
async function load() {
  vi.resetModules();
  return import('./index');
}

describe('PushClient (page API)', () => {
  let api: FakeFetch;
  let pushManager: FakePushManager;
  let browser: ReturnType<typeof browserGlobals>;

  beforeEach(() => {
    api = new FakeFetch();
    pushManager = new FakePushManager();
    browser = browserGlobals();
  });
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.useRealTimers();
  });

  const init = async (extra: Record<string, unknown> = {}) =>
    (await load()).PushClient.init({
      baseUrl: 'https://push.example.com/',
      token: 'pns_client',
      vapidPublicKey: VAPID_KEY,
      serviceWorkerUrl: '/sw.js',
      appVersion: '2.1.0',
      fetch: api.fetch,
      pushManager,
      onError: (error) => {
        throw error;
      },
      ...extra,
    });

  it('generates the installation id once and keeps it across page loads, sending nothing before subscribe', async () => {
    const first = await init();
    const second = await init();
    expect(first.installationId).toMatch(/^[0-9a-f-]{32,36}$/);
    expect(second.installationId).toBe(first.installationId);
    expect(browser.register).toHaveBeenCalledWith('/sw.js', { scope: undefined, type: 'classic' });
    expect(api.sent).toEqual([]);
    expect(first.permission).toBe('default');
  });

  it('subscribe() asks for permission, subscribes with the VAPID key and registers the installation with PUT', async () => {
    const push = await init();
    await expect(push.subscribe()).resolves.toBe('granted');

    expect(browser.notification.requestPermission).toHaveBeenCalledTimes(1);
    expect(pushManager.subscribeCalls).toHaveLength(1);
    expect(pushManager.subscribeCalls[0].userVisibleOnly).toBe(true);
    expect(Buffer.from(pushManager.subscribeCalls[0].applicationServerKey).toString('base64url')).toBe(VAPID_KEY);
    const subscription = pushManager.current!.toJSON();
    expect(api.sent).toEqual([
      {
        method: 'PUT',
        url: `https://push.example.com/api/v1/installations/${push.installationId}`,
        headers: { authorization: 'Bearer pns_client', 'content-type': 'application/json' },
        body: {
          platform: 'web',
          web_push_subscription: { endpoint: subscription.endpoint, keys: subscription.keys },
          permission: 'granted',
          device: { app_version: '2.1.0', locale: 'fr-FR', timezone: 'Europe/Paris' },
        },
      },
    ]);
    expect(push.permission).toBe('granted');
  });

  it('never sends the same PUT twice in a row: not on a second subscribe, not on the next page load', async () => {
    const push = await init();
    await push.subscribe();
    await push.subscribe();
    await init();
    expect(api.routes).toEqual([`PUT /installations/${push.installationId}`]);
    expect(pushManager.subscribeCalls).toHaveLength(1);
  });

  it('sends the unchanged registration again once it is a day old, so last_seen_at stays meaningful', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-11-20T10:00:00Z'));
    const push = await init();
    await push.subscribe();
    vi.setSystemTime(new Date('2026-11-21T09:59:00Z'));
    await init();
    expect(api.sent).toHaveLength(1);
    vi.setSystemTime(new Date('2026-11-21T10:00:01Z'));
    await init();
    expect(api.routes).toEqual([`PUT /installations/${push.installationId}`, `PUT /installations/${push.installationId}`]);
  });

  it('registers again when the browser rotated the subscription between page loads', async () => {
    const push = await init();
    await push.subscribe();
    const rotated = pushManager.rotate().toJSON();
    await init();
    expect(api.sent).toHaveLength(2);
    expect(api.sent[1].body).toMatchObject({ web_push_subscription: { endpoint: rotated.endpoint, keys: rotated.keys } });
  });

  it('reports a permission change made while the page is open, once', async () => {
    const push = await init();
    await push.subscribe();
    await browser.changePermission('denied');
    expect(api.sent).toHaveLength(2);
    expect(api.sent[1]).toMatchObject({ method: 'PUT', body: { permission: 'denied' } });
    expect(push.permission).toBe('denied');
    await init();
    expect(api.sent).toHaveLength(2);
    // Granted again (the subscription survived): registered as granted.
    await browser.changePermission('granted');
    expect(api.sent.map((r) => (r.body as { permission: string }).permission)).toEqual(['granted', 'denied', 'granted']);
  });

  it('subscribe() after the user refused does not subscribe nor register anything', async () => {
    browser = browserGlobals({ answer: 'denied' });
    const push = await init();
    await expect(push.subscribe()).resolves.toBe('denied');
    expect(pushManager.subscribeCalls).toEqual([]);
    expect(api.sent).toEqual([]);
  });

  it("setUser(userId, userIdHash) sends the backend's hash beside the user id, in the PUT and in a PATCH (identity verification)", async () => {
    const push = await init();
    await push.setUser('alice', 'a'.repeat(64));
    await push.subscribe();
    expect(api.sent[0].body).toMatchObject({ user_id: 'alice', user_id_hash: 'a'.repeat(64) });
    await push.setUser('bob', 'b'.repeat(64));
    await push.setUser(null);
    expect(api.sent.slice(1).map((r) => r.body)).toEqual([{ user_id: 'bob', user_id_hash: 'b'.repeat(64) }, { user_id: null }]);
  });

  it("preferences.get/update act for setUser's user, with X-User-Id-Hash when a hash was given (docs/api.md#preferences)", async () => {
    const push = await init();
    await expect(push.preferences.get()).rejects.toThrow('call setUser');
    await push.setUser('alice/1', 'a'.repeat(64));
    const answered = { user_id: 'alice/1', topics: { deals: { subscribed: false, source: 'user' } }, channels: { push: true, inbox: true } };
    api.answer({ status: 200, body: { data: answered } }, { status: 200, body: { data: answered } });
    await expect(push.preferences.get()).resolves.toEqual(answered);
    await expect(push.preferences.update({ topics: { deals: false }, channels: { push: null } })).resolves.toEqual(answered);
    const url = 'https://push.example.com/api/v1/users/alice%2F1/preferences';
    expect(api.sent).toEqual([
      { method: 'GET', url, headers: { authorization: 'Bearer pns_client', 'x-user-id-hash': 'a'.repeat(64) }, body: undefined },
      {
        method: 'PATCH',
        url,
        headers: { authorization: 'Bearer pns_client', 'content-type': 'application/json', 'x-user-id-hash': 'a'.repeat(64) },
        body: { topics: { deals: false }, channels: { push: null } },
      },
    ]);
    // Without a hash (identity verification off) no header; a refusal is a PushApiError.
    await push.setUser('bob');
    api.answer({ status: 403, body: { message: 'This action is unauthorized.' } });
    await expect(push.preferences.get()).rejects.toMatchObject({ name: 'PushApiError', status: 403 });
    expect(api.sent.at(-1)!.headers).toEqual({ authorization: 'Bearer pns_client' });
    await push.setUser(null);
    await expect(push.preferences.update({ channels: { push: false } })).rejects.toThrow('call setUser');
  });

  it('setUser() before subscribing is kept for the PUT; afterwards it PATCHes, only when the user changes', async () => {
    const push = await init();
    await push.setUser('alice');
    expect(api.sent).toEqual([]);
    await push.subscribe();
    expect(api.sent[0].body).toMatchObject({ user_id: 'alice' });

    await push.setUser('alice');
    await push.setUser('bob');
    await push.setUser('bob');
    await push.setUser(null);
    const path = `/installations/${push.installationId}`;
    expect(api.routes).toEqual([`PUT ${path}`, `PATCH ${path}`, `PATCH ${path}`]);
    expect(api.sent.slice(1).map((r) => r.body)).toEqual([{ user_id: 'bob' }, { user_id: null }]);
    // The next page load finds nothing new to register.
    await init();
    expect(api.sent).toHaveLength(3);
  });

  it('setTags() PATCHes the sorted set of tags and skips a set the service already has', async () => {
    const push = await init();
    await push.subscribe();
    await push.setTags(['vip', 'beta', 'vip']);
    await push.setTags(['beta', 'vip']);
    expect(api.routes.slice(1)).toEqual([`PATCH /installations/${push.installationId}`]);
    expect(api.sent[1].body).toEqual({ tags: ['beta', 'vip'] });
    await push.setTags([]);
    expect(api.sent[2].body).toEqual({ tags: [] });
  });

  it('tags set before subscribing go with the PUT; without setTags the PUT has no tags field', async () => {
    const push = await init();
    await push.setTags(['news']);
    await push.subscribe();
    expect(api.sent[0].body).toMatchObject({ tags: ['news'] });
    expect(Object.keys(api.sent[0].body as object)).not.toContain('user_id');
  });

  it('a PATCH answered 404 (installation deleted on the service) registers it anew with PUT', async () => {
    const push = await init();
    await push.subscribe();
    api.answer({ status: 404, body: { message: 'Not Found' } });
    await push.setUser('carol');
    expect(api.routes.slice(1)).toEqual([`PATCH /installations/${push.installationId}`, `PUT /installations/${push.installationId}`]);
    expect(api.sent[2].body).toMatchObject({ user_id: 'carol', permission: 'granted' });
  });

  it('unsubscribe() deletes the installation and the subscription; subscribing again registers anew', async () => {
    const push = await init();
    await push.subscribe();
    const first = pushManager.current!;
    await push.unsubscribe();
    expect(first.unsubscribed).toBe(true);
    expect(api.routes[1]).toBe(`DELETE /installations/${push.installationId}`);
    await push.unsubscribe(); // nothing registered any more: nothing to delete
    expect(api.sent).toHaveLength(2);
    await push.subscribe();
    expect(api.routes[2]).toBe(`PUT /installations/${push.installationId}`);
    expect(pushManager.subscribeCalls).toHaveLength(2);
  });

  it('replaces a subscription made with another VAPID key', async () => {
    const push = await init();
    await pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: new Uint8Array(65) });
    const old = pushManager.current!;
    await push.subscribe();
    expect(old.unsubscribed).toBe(true);
    expect(api.sent[0].body).toMatchObject({ web_push_subscription: { endpoint: pushManager.current!.endpoint } });
  });

  it('a refused registration rejects with the status and message of the service', async () => {
    const push = await init();
    api.answer({ status: 403, body: { message: 'This action is unauthorized.' } });
    const { PushApiError } = await import('./index');
    const error = await push.subscribe().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PushApiError);
    expect(error).toMatchObject({ status: 403, message: 'This action is unauthorized.' });
    // Not recorded as registered: the next attempt sends it again.
    await push.subscribe();
    expect(api.sent).toHaveLength(2);
  });

  it('init() refuses a browser without service workers, which isSupported() tells beforehand', async () => {
    vi.stubGlobal('navigator', { language: 'fr-FR' });
    const { PushClient } = await load();
    expect(PushClient.isSupported()).toBe(false);
    await expect(init()).rejects.toThrow(/no service workers or notifications/);
  });

  it('a subscription without keys is refused before anything is sent', async () => {
    const push = await init();
    const subscribe = pushManager.subscribe.bind(pushManager);
    pushManager.subscribe = async (options) => {
      const subscription = await subscribe(options);
      subscription.toJSON = () => ({ endpoint: subscription.endpoint, expirationTime: null, keys: undefined as never });
      return subscription;
    };
    await expect(push.subscribe()).rejects.toThrow('The push subscription has no endpoint or keys');
    expect(api.sent).toEqual([]);
  });

  it('init() refuses missing options', async () => {
    await expect(init({ token: '' })).rejects.toThrow('PushClient.init: token is required');
  });
});
