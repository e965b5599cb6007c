import { createHmac } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { resolve } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from '../support/chromium';
import { freePort, ROOT, runCli, serviceEnv, ServiceProcess, TEST_APP_KEY } from '../support/processes';
import { useBuiltServices } from '../support/use-built-services';
import { waitFor } from '../support/wait-for';

/**
 * The inbox example page (examples/inbox/, docs/api.md#inbox) in Debian's Chromium, as a person
 * uses it, against the built api and worker as separate processes: a send arrives in the open page
 * without a reload (stored by the worker, streamed by the api through PostgreSQL NOTIFY), marking
 * it read on one page updates the badge of another, and the pages reconnect and catch up when the
 * api restarts, or is killed while a message is stored.
 */
jest.setTimeout(240_000);

const EXAMPLE = resolve(ROOT, 'examples/inbox/index.html');
const SDK_IIFE = resolve(ROOT, 'clients/web/dist/pns.iife.js');
const SCREENSHOTS = resolve(ROOT, 'test/artifacts/inbox-example');

describe('the inbox example page in Chromium (docs/api.md#inbox)', () => {
  const stores = useBuiltServices();
  let site: Server;
  let origin: string;
  let api: ServiceProcess;
  let worker: ServiceProcess;
  let apiPort: number;
  let serverToken: string;
  let siteConfig: Record<string, unknown> = {};
  let browser: Browser;

  const cli = async (...args: string[]) => {
    const result = await runCli(args, { env: { DATABASE_URL: stores.database.url, APP_KEY: TEST_APP_KEY, NODE_ENV: 'test' } });
    if (result.code !== 0) throw new Error(`${args[0]} failed: ${result.stderr}`);
    return JSON.parse(result.stdout);
  };
  const startApiOn = async (port: number) => {
    const started = ServiceProcess.start(
      serviceEnv({ databaseUrl: stores.database.url, queuePrefix: stores.queuePrefix }, { APP_MODE: 'api', PORT: String(port), CORS_ALLOWED_ORIGINS: origin }),
    );
    await started.waitForHttp(port, '/health/live', 90_000);
    return started;
  };
  const startApi = async () => {
    api = await startApiOn(apiPort);
  };
  const send = async (title: string, port = apiPort) => {
    const res = await fetch(`http://127.0.0.1:${port}/api/v1/notifications`, {
      method: 'POST',
      headers: { authorization: `Bearer ${serverToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        recipients: { tags: ['alice-devices'] },
        notification: { title, body: 'Your order is on its way' },
        options: { channels: ['inbox'] },
      }),
    });
    expect(res.status).toBe(202);
  };
  const badge = (page: Page) => page.getByRole('status', { name: 'Unread messages' });
  /** A phone's width unless told otherwise: the page is used on both. */
  const open = async (viewport = { width: 390, height: 700 }) => {
    const page = await browser.newPage({ viewport });
    await page.goto(`${origin}/`);
    await page.getByText('Up to date').waitFor();
    return page;
  };

  beforeAll(async () => {
    if (!existsSync(SDK_IIFE)) throw new Error('clients/web/dist is missing: run `npm run build` first');
    mkdirSync(SCREENSHOTS, { recursive: true });
    site = createServer((req, res) => {
      const path = (req.url ?? '/').split('?')[0];
      if (path === '/') return void res.writeHead(200, { 'content-type': 'text/html' }).end(readFileSync(EXAMPLE));
      if (path === '/pns.iife.js') return void res.writeHead(200, { 'content-type': 'text/javascript' }).end(readFileSync(SDK_IIFE));
      if (path === '/config.json') return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(siteConfig));
      res.writeHead(404).end();
    });
    await new Promise<void>((done) => site.listen(0, '127.0.0.1', done));
    origin = `http://127.0.0.1:${(site.address() as { port: number }).port}`;

    // As an operator would: an app with identity verification on, a users:self token for the page, a server token.
    const app = await cli('apps:create', '--name', 'Inbox shop');
    await cli('apps:settings', '--app', app.id, '--identity-verification', 'on');
    const { secret } = await cli('apps:identity-secret', '--app', app.id);
    const client = await cli('tokens:create', '--app', app.id, '--abilities', 'users:self', '--name', 'web');
    serverToken = (await cli('tokens:create', '--app', app.id, '--abilities', '*', '--name', 'backend')).token;
    apiPort = await freePort();
    await startApi();
    worker = ServiceProcess.start(serviceEnv({ databaseUrl: stores.database.url, queuePrefix: stores.queuePrefix }, { APP_MODE: 'worker' }));
    await worker.waitForOutput(/Started in worker mode/, 90_000);
    // Alice's phone, so a send to a tag reaches her through the worker's fan-out.
    const installation = await fetch(`http://127.0.0.1:${apiPort}/api/v1/installations/alice-phone`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${serverToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ platform: 'ios', push_token: 'ab'.repeat(32), user_id: 'alice', tags: ['alice-devices'] }),
    });
    expect(installation.status).toBe(201);
    siteConfig = {
      baseUrl: `http://127.0.0.1:${apiPort}`,
      token: client.token,
      userId: 'alice',
      userIdHash: createHmac('sha256', secret).update('alice').digest('hex'),
    };
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await worker?.stop();
    await api?.stop();
    await new Promise((done) => site?.close(done));
  });

  it('shows a send in the open pages without a reload; reading it on one page updates the badge on the other', async () => {
    // The user's phone and their desktop browser.
    const [first, second] = [await open(), await open({ width: 1280, height: 800 })];
    await expect(badge(first).textContent()).resolves.toBe('0');

    await send('Order 42 shipped');
    for (const page of [first, second]) {
      await page.getByRole('heading', { name: 'Order 42 shipped' }).waitFor();
      await badge(page).filter({ hasText: /^1$/ }).waitFor();
    }
    await first.screenshot({ path: resolve(SCREENSHOTS, '1-arrived.png') });

    await first.getByRole('button', { name: 'Mark read: Order 42 shipped' }).click();
    await first.getByRole('button', { name: 'Mark unread: Order 42 shipped' }).waitFor();
    await badge(second).filter({ hasText: /^0$/ }).waitFor();
    // The other page shows the message read too, without a reload.
    await second.getByRole('button', { name: 'Mark unread: Order 42 shipped' }).waitFor();
    await badge(first).filter({ hasText: /^0$/ }).waitFor();
    await second.screenshot({ path: resolve(SCREENSHOTS, '2-read-elsewhere.png') });

    await send('Order 43 shipped');
    await badge(second).filter({ hasText: /^1$/ }).waitFor();
    await second.getByRole('button', { name: 'Mark all read' }).click();
    await badge(first).filter({ hasText: /^0$/ }).waitFor();
    await first.getByRole('button', { name: 'Mark unread: Order 43 shipped' }).waitFor();
    // Archived on one page, gone from the other.
    await second.getByRole('button', { name: 'Archive: Order 43 shipped' }).click();
    await first.getByRole('heading', { name: 'Order 43 shipped' }).waitFor({ state: 'detached' });
    await first.close();
    await second.close();
  });

  it('reconnects after the api restarts and catches up what was stored meanwhile', async () => {
    const page = await open();
    await api.stop();
    await startApi();
    await send('Order 44 shipped');
    await page.getByRole('heading', { name: 'Order 44 shipped' }).waitFor({ timeout: 30_000 });
    await badge(page).filter({ hasText: /^1$/ }).waitFor();
    await page.screenshot({ path: resolve(SCREENSHOTS, '3-after-restart.png') });
    await page.close();
  });

  it('survives the api being killed: what was stored while it was down arrives once after the restart (Last-Event-ID)', async () => {
    const server = (path: string, port: number, method = 'GET') =>
      fetch(`http://127.0.0.1:${port}/api/v1/users/alice/inbox${path}`, { method, headers: { authorization: `Bearer ${serverToken}` } });
    expect((await server('/read-all', apiPort, 'POST')).status).toBe(200);
    const page = await open();
    await badge(page).filter({ hasText: /^0$/ }).waitFor();
    await api.stop('SIGKILL');
    // Another api process takes the send meanwhile; the worker stores the message while the page's api is down.
    const otherPort = await freePort();
    const other = await startApiOn(otherPort);
    try {
      await send('Order 45 shipped', otherPort);
      await waitFor(async () => {
        const listed = (await (await server('', otherPort)).json()) as { data: { title: string }[] };
        return listed.data.some((m) => m.title === 'Order 45 shipped');
      }, 'the message stored while the api was down');
    } finally {
      await other.stop();
    }
    await startApi();
    await page.getByRole('heading', { name: 'Order 45 shipped' }).waitFor({ timeout: 30_000 });
    await badge(page).filter({ hasText: /^1$/ }).waitFor();
    // Then live again through the restarted api; the caught-up message shown once.
    await send('Order 46 shipped');
    await page.getByRole('heading', { name: 'Order 46 shipped' }).waitFor();
    await badge(page).filter({ hasText: /^2$/ }).waitFor();
    expect(await page.getByRole('heading', { name: 'Order 45 shipped' }).count()).toBe(1);
    await page.screenshot({ path: resolve(SCREENSHOTS, '4-after-kill.png') });
    await page.close();
  });
});
