import { IDBFactory } from 'fake-indexeddb';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FakeFetch } from './testing/fakes';

const NOTIFICATION_ID = '7d0f5c1e-4a8b-4c1d-9e2f-0123456789ab';
const PAYLOAD = {
  notification_id: NOTIFICATION_ID,
  title: 'Shipped',
  body: 'Your order is on its way',
  action_url: 'https://shop.example.com/orders/42',
  data: { order_id: 42 },
};

interface FakeWindow {
  url: string;
  focus: ReturnType<typeof vi.fn>;
  navigate: ReturnType<typeof vi.fn>;
}

const windowAt = (url: string): FakeWindow => {
  const client: FakeWindow = {
    url,
    focus: vi.fn(async () => client),
    navigate: vi.fn(async (to: string) => {
      client.url = to;
      return client;
    }),
  };
  return client;
};

/** A service worker global scope with listeners the test can dispatch to, and a fresh IndexedDB. */
function fakeScope() {
  const listeners = new Map<string, (event: unknown) => void>();
  const windows: FakeWindow[] = [];
  const shown: { title: string; options: NotificationOptions & { data: any } }[] = [];
  const scope = {
    registration: {
      scope: 'https://shop.example.com/',
      showNotification: vi.fn(async (title: string, options: NotificationOptions & { data: any }) => void shown.push({ title, options })),
      pushManager: { subscribe: vi.fn() },
      sync: { register: vi.fn(async () => undefined) },
    },
    clients: {
      matchAll: vi.fn(async () => windows),
      openWindow: vi.fn(async (url: string) => windowAt(url)),
    },
    addEventListener: (type: string, listener: (event: unknown) => void) => listeners.set(type, listener),
  };
  /** Dispatches like the browser and waits for what the listener handed to waitUntil. */
  const dispatch = async (type: string, fields: Record<string, unknown>) => {
    const pending: Promise<unknown>[] = [];
    listeners.get(type)!({ ...fields, waitUntil: (promise: Promise<unknown>) => pending.push(promise) });
    await Promise.all(pending);
  };
  return { scope, windows, shown, dispatch, listeners };
}

const pushData = (payload: unknown) => ({ data: { json: () => payload, text: () => JSON.stringify(payload) } });
const clickOn = (shown: { title: string; options: { data: any } }) => ({ notification: { data: shown.options.data, close: vi.fn() }, action: '' });

describe('setupPushWorker (service worker module)', () => {
  let api: FakeFetch;
  let fake: ReturnType<typeof fakeScope>;
  let worker: import('./worker').PushWorker;
  let store: typeof import('./shared/store');

  beforeEach(async () => {
    vi.stubGlobal('indexedDB', new IDBFactory());
    vi.resetModules();
    store = await import('./shared/store');
    const { setupPushWorker } = await import('./worker');
    // What PushClient.init() and a registration left in IndexedDB.
    await store.write('config', { baseUrl: 'https://push.example.com', token: 'pns_client', vapidPublicKey: 'BKey', appVersion: '2.1.0' });
    await store.write('installation', { id: 'inst-1' });
    api = new FakeFetch();
    fake = fakeScope();
    worker = setupPushWorker({ fetch: api.fetch, icon: '/icon.png' }, fake.scope as never);
  });
  afterEach(() => vi.unstubAllGlobals());

  const events = () => api.sent.map((r) => `${r.method} ${new URL(r.url).pathname} ${(r.body as { type: string }).type}`);

  it('shows the payload with the notification id as tag, and reports received and displayed', async () => {
    await fake.dispatch('push', pushData(PAYLOAD));
    expect(fake.shown).toEqual([
      {
        title: 'Shipped',
        options: {
          body: 'Your order is on its way',
          tag: NOTIFICATION_ID,
          icon: '/icon.png',
          badge: undefined,
          image: undefined,
          data: { data: { order_id: 42 }, pns: { notification_id: NOTIFICATION_ID, action_url: 'https://shop.example.com/orders/42' } },
        },
      },
    ]);
    const path = `/api/v1/notifications/${NOTIFICATION_ID}/events`;
    expect(events().sort()).toEqual([`POST ${path} displayed`, `POST ${path} received`]);
    for (const request of api.sent) {
      expect(request.headers.authorization).toBe('Bearer pns_client');
      expect(request.body).toEqual({ installation_id: 'inst-1', type: expect.any(String), occurred_at: expect.stringMatching(/Z$/) });
    }
  });

  it('the render hook changes what is shown; returning null shows nothing and reports only received', async () => {
    const { setupPushWorker } = await import('./worker');
    const other = fakeScope();
    setupPushWorker({ fetch: api.fetch, render: (payload, display) => ({ ...display, title: `${payload.title}!` }) }, other.scope as never);
    await other.dispatch('push', pushData(PAYLOAD));
    expect(other.shown[0].title).toBe('Shipped!');
    expect(other.shown[0].options.data.pns.notification_id).toBe(NOTIFICATION_ID);

    api.sent.length = 0;
    const silent = fakeScope();
    setupPushWorker({ fetch: api.fetch, render: () => null }, silent.scope as never);
    await silent.dispatch('push', pushData(PAYLOAD));
    expect(silent.shown).toEqual([]);
    expect(events()).toEqual([`POST /api/v1/notifications/${NOTIFICATION_ID}/events received`]);
  });

  it('reports a declarative message of ours (its data holds our id) as received, displayed and opened, and keeps the send data', async () => {
    const { setupPushWorker } = await import('./worker');
    const declared = fakeScope();
    setupPushWorker({ fetch: api.fetch }, declared.scope as never);
    const data = { notification_id: NOTIFICATION_ID, data: { order: '42' } };
    await declared.dispatch(
      'push',
      pushData({ web_push: 8030, notification: { title: 'Sale', navigate: 'https://shop.example.com/sale', data }, mutable: false }),
    );
    expect(declared.shown[0].options.data).toEqual({
      data: { order: '42' },
      pns: { notification_id: NOTIFICATION_ID, action_url: 'https://shop.example.com/sale' },
    });
    await declared.dispatch('notificationclick', clickOn(declared.shown[0]));
    expect(events()).toEqual(['received', 'displayed', 'opened'].map((type) => `POST /api/v1/notifications/${NOTIFICATION_ID}/events ${type}`));
  });

  it('shows a declarative message (docs/api.md#declarative-web-push) as Safari would, sets the app badge, and a click opens navigate', async () => {
    const setAppBadge = vi.fn(async () => undefined);
    const { setupPushWorker } = await import('./worker');
    const badged = fakeScope();
    setupPushWorker({ fetch: api.fetch, icon: '/icon.png' }, { ...badged.scope, navigator: { setAppBadge } } as never);
    const tab = windowAt('https://shop.example.com/');
    badged.windows.push(tab);
    await badged.dispatch(
      'push',
      pushData({
        web_push: 8030,
        notification: { title: 'Sale', body: 'Today only', navigate: 'https://shop.example.com/sale', lang: 'fr', silent: true, app_badge: 3 },
        mutable: false,
      }),
    );
    expect(badged.shown).toEqual([
      {
        title: 'Sale',
        options: {
          body: 'Today only',
          lang: 'fr',
          silent: true,
          icon: '/icon.png',
          badge: undefined,
          data: { pns: { notification_id: null, action_url: 'https://shop.example.com/sale' } },
        },
      },
    ]);
    expect(setAppBadge).toHaveBeenCalledWith(3);
    await badged.dispatch('notificationclick', clickOn(badged.shown[0]));
    expect(tab.navigate).toHaveBeenCalledWith('https://shop.example.com/sale');
    // It carries no notification id (another sender's): nothing to report.
    expect(api.sent).toEqual([]);
    // Without a navigate URL it is not a declarative message.
    await badged.dispatch('push', pushData({ web_push: 8030, notification: { title: 'No link' } }));
    expect(badged.shown).toHaveLength(1);
  });

  it('a push that is not ours is left alone', async () => {
    await fake.dispatch('push', pushData({ hello: 'world' }));
    await fake.dispatch('push', { data: { json: () => JSON.parse('not json') } });
    expect(fake.shown).toEqual([]);
    expect(api.sent).toEqual([]);
  });

  it('shows even when reporting fails, keeps the reports and sends them at the next chance', async () => {
    api.answer('network-error', { status: 503 });
    await fake.dispatch('push', pushData(PAYLOAD));
    expect(fake.shown).toHaveLength(1);
    expect(fake.scope.registration.sync.register).toHaveBeenCalledWith('pns-reports');
    expect((await store.read<unknown[]>('outbox'))!.length).toBe(2);

    api.sent.length = 0;
    await fake.dispatch('sync', { tag: 'pns-reports' });
    expect(events().sort()).toEqual([
      `POST /api/v1/notifications/${NOTIFICATION_ID}/events displayed`,
      `POST /api/v1/notifications/${NOTIFICATION_ID}/events received`,
    ]);
    expect(await store.read('outbox')).toEqual([]);
    api.sent.length = 0;
    await worker.flushReports();
    expect(api.sent).toEqual([]);
  });

  it('drops a report the service refuses for good (422: not targeted) instead of retrying it', async () => {
    api.answer({ status: 422, body: { message: 'invalid' } }, { status: 422, body: { message: 'invalid' } });
    await fake.dispatch('push', pushData(PAYLOAD));
    expect(fake.shown).toHaveLength(1);
    expect(await store.read('outbox')).toBeUndefined();
  });

  it('a click reports opened and navigates the open tab of the site to action_url', async () => {
    const tab = windowAt('https://shop.example.com/');
    fake.windows.push(tab);
    await fake.dispatch('push', pushData(PAYLOAD));
    api.sent.length = 0;
    const click = clickOn(fake.shown[0]);
    await fake.dispatch('notificationclick', click);
    expect(click.notification.close).toHaveBeenCalled();
    expect(events()).toEqual([`POST /api/v1/notifications/${NOTIFICATION_ID}/events opened`]);
    expect(tab.navigate).toHaveBeenCalledWith('https://shop.example.com/orders/42');
    expect(tab.focus).toHaveBeenCalled();
    expect(fake.scope.clients.openWindow).not.toHaveBeenCalled();
  });

  it('shows options.web (icon, badge, tag, flags, buttons) and a button click opens its url and reports opened with its action', async () => {
    const actions = [
      { action: 'track', title: 'Track', url: 'https://shop.example.com/track/42' },
      { action: 'later', title: 'Later' },
    ];
    const payload = {
      ...PAYLOAD,
      icon: 'https://cdn.example.com/i.png',
      badge: 'https://cdn.example.com/b.png',
      tag: 'order-42',
      require_interaction: true,
      renotify: true,
      silent: false,
      actions,
    };
    await fake.dispatch('push', pushData(payload));
    expect(fake.shown[0].options).toMatchObject({
      tag: 'order-42',
      icon: 'https://cdn.example.com/i.png',
      badge: 'https://cdn.example.com/b.png',
      requireInteraction: true,
      renotify: true,
      silent: false,
      actions: [
        { action: 'track', title: 'Track' },
        { action: 'later', title: 'Later' },
      ],
    });
    api.sent.length = 0;
    await fake.dispatch('notificationclick', { ...clickOn(fake.shown[0]), action: 'track' });
    expect(fake.scope.clients.openWindow).toHaveBeenCalledWith('https://shop.example.com/track/42');
    expect(api.sent.map((r) => r.body)).toEqual([{ installation_id: 'inst-1', type: 'opened', occurred_at: expect.any(String), action: 'track' }]);

    // A button without url opens action_url; a click on the body reports no action.
    api.sent.length = 0;
    await fake.dispatch('notificationclick', { ...clickOn(fake.shown[0]), action: 'later' });
    expect(fake.scope.clients.openWindow).toHaveBeenLastCalledWith('https://shop.example.com/orders/42');
    expect(api.sent.map((r) => (r.body as { action?: string }).action)).toEqual(['later']);
    api.sent.length = 0;
    await fake.dispatch('notificationclick', clickOn(fake.shown[0]));
    expect(api.sent.map((r) => r.body)).toEqual([{ installation_id: 'inst-1', type: 'opened', occurred_at: expect.any(String) }]);
  });

  it('a click focuses a tab already at action_url, or opens a window when the site has none', async () => {
    const there = windowAt('https://shop.example.com/orders/42');
    fake.windows.push(there);
    await fake.dispatch('push', pushData(PAYLOAD));
    await fake.dispatch('notificationclick', clickOn(fake.shown[0]));
    expect(there.focus).toHaveBeenCalled();
    expect(there.navigate).not.toHaveBeenCalled();

    fake.windows.length = 0;
    fake.windows.push(windowAt('https://elsewhere.example.org/'));
    await fake.dispatch('notificationclick', clickOn(fake.shown[0]));
    expect(fake.scope.clients.openWindow).toHaveBeenCalledWith('https://shop.example.com/orders/42');
  });

  it('a deep link (myapp://) opens the site instead; no action_url opens the site too', async () => {
    await fake.dispatch('push', pushData({ ...PAYLOAD, action_url: 'myapp://orders/42' }));
    await fake.dispatch('notificationclick', clickOn(fake.shown[0]));
    await fake.dispatch('push', pushData({ ...PAYLOAD, action_url: undefined }));
    await fake.dispatch('notificationclick', clickOn(fake.shown[1]));
    expect(fake.scope.clients.openWindow.mock.calls).toEqual([['https://shop.example.com/'], ['https://shop.example.com/']]);
  });

  it('handleNotificationClick is the click listener itself, for a worker test hook', async () => {
    await worker.handlePush(PAYLOAD);
    api.sent.length = 0;
    await worker.handleNotificationClick(clickOn(fake.shown[0]).notification as unknown as Notification);
    expect(events()).toEqual([`POST /api/v1/notifications/${NOTIFICATION_ID}/events opened`]);
  });

  it('registers the new subscription when the browser rotates it (pushsubscriptionchange), with no page open', async () => {
    vi.stubGlobal('navigator', { language: 'de-DE' });
    const newSubscription = {
      toJSON: () => ({ endpoint: 'https://push.example.net/push/new', keys: { p256dh: 'p', auth: 'a' } }),
    };
    await fake.dispatch('pushsubscriptionchange', { newSubscription, oldSubscription: null });
    expect(api.sent).toEqual([
      expect.objectContaining({
        method: 'PUT',
        url: 'https://push.example.com/api/v1/installations/inst-1',
        body: {
          platform: 'web',
          web_push_subscription: { endpoint: 'https://push.example.net/push/new', keys: { p256dh: 'p', auth: 'a' } },
          permission: 'granted',
          device: { app_version: '2.1.0', locale: 'de-DE', timezone: expect.any(String) },
        },
      }),
    ]);
    // The same rotation reported twice is sent once.
    await fake.dispatch('pushsubscriptionchange', { newSubscription, oldSubscription: null });
    expect(api.sent).toHaveLength(1);
  });
});
