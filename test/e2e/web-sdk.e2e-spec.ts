import { createReadStream, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { extname, join, resolve } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { CHROMIUM } from '../support/chromium';
import { type Desktop, type DesktopNotification, startDesktop } from '../support/desktop-notifications';
import { FakeWebPush } from '../fakes';
import { freePort, ROOT, runCli, serviceEnv, ServiceProcess, TEST_APP_KEY, waitUntil } from '../support/processes';
import { useBuiltServices } from '../support/use-built-services';

/**
 * Issue #17: the web SDK (clients/web) in Debian's Chromium, against the built service. A test
 * page on its own origin (the API allows it through CORS_ALLOWED_ORIGINS) subscribes and
 * registers; a notification sent through the API reaches the loopback Web Push service, and the
 * payload it decrypted is pushed into the browser's service worker over the DevTools protocol.
 *
 * The browser cannot reach a real push service, so the page gives the SDK the loopback service's
 * subscription through the `pushManager` option (clients/web/README.md). Notifications are shown
 * where Chromium on Linux shows them, the desktop's notification server on D-Bus: the test runs
 * one (test/support/desktop-notifications.ts) and clicks there, on a notification's body or one
 * of its buttons, so the SDK's real `notificationclick` listener runs. DevTools has no command
 * to click a notification, and a DevTools browser context is one Chromium drops clicks for, hence
 * a persistent profile.
 */
jest.setTimeout(120_000);

/** What the test reaches into in the page (the root tsconfig has no DOM library). */
declare const navigator: {
  serviceWorker: {
    ready: Promise<{ getNotifications(): Promise<unknown[]> }>;
  };
};

const SDK_DIST = resolve(ROOT, 'clients/web/dist');
const SCREENSHOTS = resolve(ROOT, 'test/artifacts/web-sdk');

const INDEX_HTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Test shop</title></head>
<body>
  <h1>Test shop</h1>
  <button id="enable">Enable notifications</button>
  <button id="login">Sign in as alice</button>
  <button id="list">Show my notifications</button>
  <button id="follow">Follow news</button>
  <button id="off">Turn notifications off</button>
  <p role="status" id="status">Loading</p>
  <ul id="notifications" aria-label="Notifications shown"></ul>
  <script type="module">
    import { PushClient } from '/sdk/index.js';
    const config = await (await fetch('/config.json')).json();
    const status = document.getElementById('status');
    // This browser cannot reach a real push service: the SDK's pushManager option gives it the
    // subscription of the test's loopback Web Push service instead (clients/web/README.md).
    let current = null;
    const pushManager = {
      async getSubscription() { return current; },
      async subscribe(options) {
        current = {
          options: { applicationServerKey: options.applicationServerKey.buffer },
          toJSON: () => config.subscription,
          async unsubscribe() { current = null; return true; },
        };
        return current;
      },
    };
    const push = await PushClient.init({
      baseUrl: config.baseUrl,
      token: config.token,
      vapidPublicKey: config.vapidPublicKey,
      serviceWorkerUrl: '/sw.js',
      appVersion: '1.0.0-e2e',
      pushManager,
      onError: (error) => { status.textContent = 'Error: ' + error.message; },
    });
    status.textContent = 'Ready, permission ' + push.permission;
    document.getElementById('enable').onclick = async () => {
      const permission = await push.subscribe().catch((error) => 'error ' + error.message);
      status.textContent = 'Notifications ' + permission + ' for installation ' + push.installationId;
    };
    document.getElementById('login').onclick = async () => {
      await push.setUser('alice');
      status.textContent = 'Signed in as alice';
    };
    document.getElementById('follow').onclick = async () => {
      await push.setTags(['vip', 'news', 'vip']);
      status.textContent = 'Following news';
    };
    document.getElementById('off').onclick = async () => {
      await push.unsubscribe();
      status.textContent = 'Notifications off';
    };
    document.getElementById('list').onclick = async () => {
      const registration = await navigator.serviceWorker.ready;
      const shown = await registration.getNotifications();
      document.getElementById('notifications').replaceChildren(...shown.map((n) => {
        const item = document.createElement('li');
        item.textContent = n.title + ': ' + n.body + ' (tag ' + n.tag + ')';
        for (const a of n.actions ?? []) item.append(' [' + a.title + ']');
        return item;
      }));
    };
  </script>
</body></html>`;

const WORKER_JS = `importScripts('/sdk/worker.iife.js');
PnsWorker.setupPushWorker();
self.addEventListener('install', () => self.skipWaiting());
self.addEventListener('activate', (event) => event.waitUntil(self.clients.claim()));`;

const TYPES: Record<string, string> = { '.js': 'text/javascript', '.map': 'application/json', '.html': 'text/html' };

/** The test site: its page, its worker, the SDK's bundles under /sdk/ and the page an action_url opens. */
function startSite(config: () => unknown): Promise<{ server: Server; origin: string }> {
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const send = (type: string, body: string) => res.writeHead(200, { 'content-type': type }).end(body);
    if (path === '/') return send('text/html', INDEX_HTML);
    if (path === '/sw.js') return send('text/javascript', WORKER_JS);
    if (path === '/config.json') return send('application/json', JSON.stringify(config()));
    if (path === '/orders/42') return send('text/html', '<!doctype html><title>Order 42</title><h1>Order 42</h1><p>On its way.</p>');
    if (path === '/track/42') return send('text/html', '<!doctype html><title>Tracking</title><h1>Parcel 42 tracking</h1>');
    const file = path.startsWith('/sdk/') ? resolve(SDK_DIST, path.slice(5)) : '';
    if (file.startsWith(`${SDK_DIST}/`) && existsSync(file)) {
      res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' });
      return void createReadStream(file).pipe(res);
    }
    res.writeHead(404).end();
  });
  return new Promise((done) =>
    server.listen(0, '127.0.0.1', () => done({ server, origin: `http://127.0.0.1:${(server.address() as { port: number }).port}` })),
  );
}

describe('web SDK in Chromium (issue #17)', () => {
  const stores = useBuiltServices();
  const web = new FakeWebPush();
  let site: { server: Server; origin: string };
  let service: ServiceProcess;
  let apiUrl: string;
  let serverToken: string;
  let siteConfig: Record<string, unknown> = {};
  let desktop: Desktop;
  let profile: string;
  let context: BrowserContext;
  let page: Page;

  const cli = async (...args: string[]) => {
    const result = await runCli(args, { env: { DATABASE_URL: stores.database.url, APP_KEY: TEST_APP_KEY, NODE_ENV: 'test' } });
    if (result.code !== 0) throw new Error(`${args[0]} failed: ${result.stderr}`);
    return JSON.parse(result.stdout);
  };
  const api = async (path: string, init: RequestInit = {}) => {
    const res = await fetch(`${apiUrl}/api/v1${path}`, {
      ...init,
      headers: { authorization: `Bearer ${serverToken}`, 'content-type': 'application/json' },
    });
    return { status: res.status, body: (await res.json()) as { data: Record<string, any> } };
  };
  const statistics = async (id: string) => (await api(`/notifications/${id}`)).body.data.statistics;

  beforeAll(async () => {
    if (!existsSync(resolve(SDK_DIST, 'worker.iife.js'))) throw new Error('clients/web/dist is missing: run `npm run build` first');
    mkdirSync(SCREENSHOTS, { recursive: true });
    await web.start();
    site = await startSite(() => siteConfig);

    // As an operator would: an app with a VAPID key pair, a client token for the page and a
    // server token for the back end.
    const app = await cli('apps:create', '--name', 'Test shop');
    const credentials = await cli('apps:credentials', '--app', app.id, '--vapid-subject', 'mailto:ops@example.com');
    const vapidPublicKey: string = credentials.web_push.public_key;
    const client = await cli('tokens:create', '--app', app.id, '--abilities', 'installations:write,events:write', '--name', 'web');
    serverToken = (await cli('tokens:create', '--app', app.id, '--abilities', '*', '--name', 'backend')).token;

    const port = await freePort();
    apiUrl = `http://127.0.0.1:${port}`;
    service = ServiceProcess.start(
      serviceEnv(
        { databaseUrl: stores.database.url, queuePrefix: stores.queuePrefix },
        { APP_MODE: 'all', PORT: String(port), CORS_ALLOWED_ORIGINS: site.origin, SWEEP_INTERVAL_MS: '300' },
      ),
    );
    await service.waitForHttp(port);

    // The subscription a browser would get from its push service, bound to the app's VAPID key.
    const subscription = web.createSubscription({ applicationServerKey: vapidPublicKey });
    siteConfig = { baseUrl: apiUrl, token: client.token, vapidPublicKey, subscription };

    desktop = await startDesktop();
    profile = mkdtempSync(join(tmpdir(), 'web-sdk-profile-'));
    if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: install Debian's chromium (apt-get install chromium), as .ci/run does`);
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
      env: { ...process.env, ...desktop.env },
      locale: 'fr-FR',
      timezoneId: 'Europe/Paris',
      viewport: { width: 900, height: 600 },
    });
    await context.grantPermissions(['notifications'], { origin: site.origin });
    page = context.pages()[0] ?? (await context.newPage());
  });

  afterAll(async () => {
    await context?.close();
    await desktop?.stop();
    if (profile) rmSync(profile, { recursive: true, force: true });
    await service?.stop();
    await new Promise((done) => site?.server.close(done));
    await web.stop();
  });

  let installationId: string;
  let notificationId: string;
  let pushed: string;
  /** Hands a decrypted payload to the page's service worker, as its push service would. */
  let deliverPush: (data: string) => Promise<unknown>;
  /**
   * The newest notification on the desktop with this title, once Chromium has shown it there: a
   * repeat that reaches Chromium before the desktop's answer to the first is shown anew, and only
   * the newest is the one Chromium knows.
   */
  const onDesktop = async (title: string): Promise<DesktopNotification> => {
    const open = () => desktop.shown.filter((n) => n.summary === title && !n.closed);
    await waitUntil(() => open().length > 0, `"${title}" on the desktop`);
    return open()[open().length - 1];
  };

  it('subscribes at a click and registers the installation, cross-origin, with the client token', async () => {
    await page.goto(`${site.origin}/`);
    await page.getByRole('status').filter({ hasText: 'Ready, permission granted' }).waitFor();
    await page.getByRole('button', { name: 'Enable notifications' }).click();
    const status = page.getByRole('status');
    await status.filter({ hasText: /Notifications granted for installation/ }).waitFor();
    installationId = /installation (\S+)$/.exec((await status.textContent())!)![1];
    await page.getByRole('button', { name: 'Sign in as alice' }).click();
    await status.filter({ hasText: 'Signed in as alice' }).waitFor();
    await page.screenshot({ path: resolve(SCREENSHOTS, '1-subscribed.png') });

    const { status: code, body } = await api(`/installations/${installationId}`);
    expect(code).toBe(200);
    expect(body.data).toMatchObject({
      installation_id: installationId,
      platform: 'web',
      permission: 'granted',
      user_id: 'alice',
      device: { app_version: '1.0.0-e2e', locale: 'fr-FR', timezone: 'Europe/Paris', os_version: null, model: null },
      invalidated_at: null,
    });
  });

  it('sends nothing on the next page load when nothing changed (last_seen_at stays)', async () => {
    const before = (await api(`/installations/${installationId}`)).body.data.last_seen_at;
    await page.reload();
    await page.getByRole('status').filter({ hasText: 'Ready, permission granted' }).waitFor();
    expect((await api(`/installations/${installationId}`)).body.data.last_seen_at).toBe(before);
  });

  it('shows the pushed notification once, tagged with its id, and counts it received and displayed', async () => {
    const sent = await api('/notifications', {
      method: 'POST',
      body: JSON.stringify({
        recipients: { user_ids: ['alice'] },
        notification: { title: 'Your order shipped', body: 'Order 42 is on its way', action_url: `${site.origin}/orders/42` },
        data: { order_id: 42 },
      }),
    });
    expect(sent.status).toBe(202);
    notificationId = sent.body.data.id;
    // The service really delivered it to this installation's subscription: take what the push
    // service decrypted, byte for byte what the browser's push event would carry.
    await waitUntil(() => web.requests.some((r) => r.status === 201 && r.text !== undefined), 'the Web Push delivery');
    pushed = web.requests.find((r) => r.status === 201)!.text!;
    expect(JSON.parse(pushed)).toEqual({
      notification_id: notificationId,
      title: 'Your order shipped',
      body: 'Order 42 is on its way',
      action_url: `${site.origin}/orders/42`,
      data: { order_id: 42 },
    });

    // Its delivery is recorded as accepted: events count only for installations it was sent to.
    await waitUntil(async () => (await statistics(notificationId)).accepted === 1, 'the delivery to be recorded');

    const cdp = await context.newCDPSession(page);
    const registrations: { registrationId: string; scopeURL: string; isDeleted: boolean }[] = [];
    cdp.on('ServiceWorker.workerRegistrationUpdated', (event) => registrations.push(...event.registrations));
    await cdp.send('ServiceWorker.enable');
    await waitUntil(() => registrations.some((r) => r.scopeURL === `${site.origin}/` && !r.isDeleted), 'the worker registration');
    const { registrationId } = registrations.find((r) => r.scopeURL === `${site.origin}/` && !r.isDeleted)!;
    deliverPush = (data) => cdp.send('ServiceWorker.deliverPushMessage', { origin: site.origin, registrationId, data });
    // Twice, as a push service may deliver: the tag makes the second replace the first.
    for (let i = 0; i < 2; i++) await deliverPush(pushed);

    await waitUntil(async () => {
      const s = await statistics(notificationId);
      return s.received === 1 && s.displayed === 1;
    }, 'received and displayed to be counted');
    await page.getByRole('button', { name: 'Show my notifications' }).click();
    const items = page.getByRole('list', { name: 'Notifications shown' }).getByRole('listitem');
    await items.first().waitFor();
    expect(await items.allTextContents()).toEqual([`Your order shipped: Order 42 is on its way (tag ${notificationId})`]);
    expect((await onDesktop('Your order shipped')).body).toContain('Order 42 is on its way');
    await page.screenshot({ path: resolve(SCREENSHOTS, '2-notification-shown.png') });
    expect(await statistics(notificationId)).toMatchObject({ accepted: 1, received: 1, displayed: 1, opened: 0 });
  });

  it('a click on the notification counts opened and opens action_url', async () => {
    desktop.click(await onDesktop('Your order shipped'));
    await page.waitForURL(`${site.origin}/orders/42`);
    await page.getByRole('heading', { name: 'Order 42' }).waitFor();
    await page.screenshot({ path: resolve(SCREENSHOTS, '3-action-url-opened.png') });
    await waitUntil(async () => (await statistics(notificationId)).opened === 1, 'opened to be counted');
    // The click closed the notification.
    expect(await page.evaluate(async () => (await (await navigator.serviceWorker.ready).getNotifications()).length)).toBe(0);
  });

  it('shows options.web with its buttons; a click on a button opens its url and counts opened with the action (docs/api.md#web-action-buttons)', async () => {
    await page.goto(`${site.origin}/`);
    await page.getByRole('status').filter({ hasText: 'Ready, permission granted' }).waitFor();
    const sent = await api('/notifications', {
      method: 'POST',
      body: JSON.stringify({
        recipients: { user_ids: ['alice'] },
        notification: { title: 'Parcel update', body: 'Out for delivery', action_url: `${site.origin}/orders/42` },
        options: {
          web: {
            tag: 'parcel-42',
            require_interaction: true,
            urgency: 'low',
            actions: [
              { action: 'track', title: 'Track parcel', url: `${site.origin}/track/42` },
              { action: 'later', title: 'Remind me later' },
            ],
          },
        },
      }),
    });
    expect(sent.status).toBe(202);
    const id: string = sent.body.data.id;
    await waitUntil(() => web.requests.some((r) => r.status === 201 && r.text?.includes(id)), 'the Web Push delivery with buttons');
    const request = web.requests.find((r) => r.status === 201 && r.text?.includes(id))!;
    expect(request.text).toBe(
      `{"notification_id":"${id}","title":"Parcel update","body":"Out for delivery","action_url":"${site.origin}/orders/42","tag":"parcel-42",` +
        `"require_interaction":true,"actions":[{"action":"track","title":"Track parcel","url":"${site.origin}/track/42"},` +
        '{"action":"later","title":"Remind me later"}]}',
    );
    expect(request.headers.urgency).toBe('low');
    await waitUntil(async () => (await statistics(id)).accepted === 1, 'the delivery to be recorded');

    await deliverPush(request.text!);
    await waitUntil(async () => (await statistics(id)).displayed === 1, 'displayed to be counted');
    await page.getByRole('button', { name: 'Show my notifications' }).click();
    const item = page.getByRole('list', { name: 'Notifications shown' }).getByRole('listitem').filter({ hasText: 'Parcel update' });
    await item.waitFor();
    expect(await item.textContent()).toBe('Parcel update: Out for delivery (tag parcel-42) [Track parcel] [Remind me later]');
    await page.screenshot({ path: resolve(SCREENSHOTS, '4-action-buttons.png') });
    const parcel = await onDesktop('Parcel update');
    expect(parcel.actions.map((a) => a.label)).toEqual(expect.arrayContaining(['Track parcel', 'Remind me later']));

    desktop.click(parcel, 'Track parcel');
    await page.waitForURL(`${site.origin}/track/42`);
    await page.getByRole('heading', { name: 'Parcel 42 tracking' }).waitFor();
    await waitUntil(async () => (await statistics(id)).opened === 1, 'opened to be counted');
    const trace = (await api(`/notifications/${id}/deliveries`)).body.data as unknown as Record<string, unknown>[];
    expect(trace).toEqual([expect.objectContaining({ installation_id: installationId, opened_action: 'track' })]);
  });

  it('shows a declarative message (options.web.declarative) through the real worker; a click opens navigate (docs/api.md#declarative-web-push)', async () => {
    await page.goto(`${site.origin}/`);
    await page.getByRole('status').filter({ hasText: 'Ready, permission granted' }).waitFor();
    const sent = await api('/notifications', {
      method: 'POST',
      body: JSON.stringify({
        recipients: { user_ids: ['alice'] },
        notification: { title: 'Flash sale', body: 'Ends tonight', action_url: `${site.origin}/orders/42` },
        options: { badge: 2, web: { declarative: true } },
      }),
    });
    expect(sent.status).toBe(202);
    const id: string = sent.body.data.id;
    const delivered = () => web.requests.find((r) => r.status === 201 && r.text?.includes('Flash sale'));
    await waitUntil(() => delivered() !== undefined, 'the declarative Web Push delivery');
    const text = delivered()!.text!;
    expect(JSON.parse(text)).toEqual({
      web_push: 8030,
      notification: { title: 'Flash sale', body: 'Ends tonight', navigate: `${site.origin}/orders/42`, app_badge: 2, data: { notification_id: id } },
      mutable: false,
    });
    await waitUntil(async () => (await statistics(id)).accepted === 1, 'the delivery to be recorded');

    // Chromium has no declarative support: the message reaches the SDK worker's push listener, which shows it.
    await deliverPush(text);
    const shown = await onDesktop('Flash sale');
    expect(shown.body).toContain('Ends tonight');
    await page.screenshot({ path: resolve(SCREENSHOTS, '5-declarative.png') });
    desktop.click(shown);
    await page.waitForURL(`${site.origin}/orders/42`);
    await page.getByRole('heading', { name: 'Order 42' }).waitFor();
    // Its data carries the notification id: the worker reports it as any message of ours.
    await waitUntil(async () => (await statistics(id)).opened === 1, 'the opened event');
    expect(await statistics(id)).toMatchObject({ accepted: 1, received: 1, displayed: 1, opened: 1 });
  });

  it('setTags stores the set (sorted, without duplicates), and a send to one of the tags reaches this browser', async () => {
    await page.goto(`${site.origin}/`);
    await page.getByRole('status').filter({ hasText: 'Ready, permission granted' }).waitFor();
    await page.getByRole('button', { name: 'Follow news' }).click();
    await page.getByRole('status').filter({ hasText: 'Following news' }).waitFor();
    expect((await api(`/installations/${installationId}`)).body.data.tags).toEqual(['news', 'vip']);

    const sent = await api('/notifications', {
      method: 'POST',
      body: JSON.stringify({ recipients: { tags: ['news'] }, notification: { title: 'News', body: 'For followers of news' } }),
    });
    expect(sent.status).toBe(202);
    const tagged = sent.body.data.id;
    await waitUntil(
      () => web.requests.some((r) => r.status === 201 && r.text !== undefined && JSON.parse(r.text).notification_id === tagged),
      'the tag send at the Web Push service',
    );
    await waitUntil(async () => (await statistics(tagged)).accepted === 1, 'the tag send to be recorded');
  });

  it('turning notifications off deletes the installation', async () => {
    await page.goto(`${site.origin}/`);
    await page.getByRole('status').filter({ hasText: 'Ready, permission granted' }).waitFor();
    await page.getByRole('button', { name: 'Turn notifications off' }).click();
    await page.getByRole('status').filter({ hasText: 'Notifications off' }).waitFor();
    expect((await api(`/installations/${installationId}`)).status).toBe(404);
  });
});
