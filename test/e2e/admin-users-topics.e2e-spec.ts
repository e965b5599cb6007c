import { resolve } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchChromium } from '../support/chromium';
import { ApiModule } from '../../src/app.module';
import { useTestApp } from '../support/create-test-app';
import { newApp, newInstallation, type TestTenant } from '../support/factories';
import { DASHBOARD_SCREENSHOTS, logInToDashboard, pageOverflow, startDashboardService } from '../support/dashboard';
import { watchDashboardPage } from '../support/dashboard-watch';
import { killAllServices, waitUntil } from '../support/processes';
import { type FakeProviders, startFakeProviders } from '../support/providers';

/**
 * Issue 52 item 5: the dashboard's user page (installations, preferences, inbox) and its topics
 * page, in Debian's Chromium against the built service (APP_MODE=all: the worker stores the inbox
 * messages), used as an operator would at desktop and phone widths. Another user's and another
 * app's data never show. Screenshots go to test/artifacts/admin/ (ignored by git).
 */
jest.setTimeout(120_000);

const DESKTOP = { width: 1280, height: 900 };
const PHONE = { width: 390, height: 844 };

describe("operator dashboard's users and topics in Chromium (issue 52 item 5)", () => {
  let fakes: FakeProviders;
  beforeAll(async () => {
    fakes = await startFakeProviders();
  });
  afterAll(() => killAllServices());
  const ctx = useTestApp(() => ({ module: ApiModule, env: fakes.env }));
  afterAll(() => fakes?.stop());

  let shop: TestTenant;
  let other: TestTenant;
  let origin: string;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const foreignRequests: string[] = [];
  const consoleErrors: string[] = [];
  const answerProblems: Promise<string | null>[] = [];

  const api = async (tenant: TestTenant, path: string, body?: unknown, method = body === undefined ? 'GET' : 'POST') => {
    const res = await fetch(`${origin}/api/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${tenant.token}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as { data: any } };
  };
  const shot = (name: string) => page.screenshot({ path: resolve(DASHBOARD_SCREENSHOTS, `${name}.png`), fullPage: true });
  const overflow = () => pageOverflow(page);
  const inboxRows = () => page.getByRole('region', { name: 'Inbox messages' }).locator('tbody tr');

  beforeAll(async () => {
    shop = await newApp(ctx, 'Acme Shop');
    other = await newApp(ctx, 'Other app');
    await newInstallation(ctx, shop.token, { user_id: 'alice', device: { model: 'iPhone16,1', locale: 'en-GB' } }, 'alice-iphone');
    await newInstallation(ctx, shop.token, { user_id: 'bob' }, 'bob-pixel');
    await newInstallation(ctx, other.token, { user_id: 'alice' }, 'alice-elsewhere');

    origin = await startDashboardService(ctx, { ...fakes.env });

    // The shop's back end: two topics, alice says no to promotions, messages for alice and bob in the inbox.
    expect((await api(shop, '/topics/promotions', { name: 'Promotions', description: 'Sales, at most weekly.', default: 'subscribed' }, 'PUT')).status).toBe(
      201,
    );
    expect((await api(shop, '/topics/orders', { name: 'Order updates', default: 'unsubscribed' }, 'PUT')).status).toBe(201);
    expect((await api(other, '/topics/secret-sales', { name: 'Secret sales', default: 'subscribed' }, 'PUT')).status).toBe(201);
    expect((await api(shop, '/users/alice/preferences', { topics: { promotions: false } }, 'PATCH')).status).toBe(200);
    const inbox = async (tenant: TestTenant, user: string, title: string) => {
      const sent = await api(tenant, '/notifications', {
        recipients: { user_ids: [user] },
        notification: { title, body: `For ${user}` },
        options: { channels: ['inbox'] },
      });
      expect(sent.status).toBe(202);
      await waitUntil(async () => (await api(tenant, `/notifications/${sent.body.data.id}`)).body.data.completed_at !== null, `"${title}" to complete`, 30_000);
    };
    await inbox(shop, 'alice', 'Welcome aboard');
    await inbox(shop, 'alice', 'Your order shipped');
    await inbox(shop, 'bob', 'Bob’s private note');
    await inbox(other, 'alice', 'Other app’s message');
    const [welcome] = (await api(shop, '/users/alice/inbox')).body.data.filter((m: { title: string }) => m.title === 'Welcome aboard');
    expect((await api(shop, `/users/alice/inbox/${welcome.id}`, { read: true }, 'PATCH')).status).toBe(200);

    browser = await launchChromium();
    context = await browser.newContext({ locale: 'en-US', timezoneId: 'Europe/Paris', viewport: DESKTOP });
    page = await context.newPage();
    watchDashboardPage(page, origin, { foreignRequests, consoleErrors, answerProblems });

    await logInToDashboard(page, origin);
  });

  afterAll(async () => {
    await browser?.close();
  });

  it("reaches a user's page from the installations page, with their preferences and inbox only", async () => {
    await page.getByRole('link', { name: 'Apps', exact: true }).click();
    await page.getByRole('link', { name: 'Acme Shop' }).click();
    await page.getByRole('link', { name: 'Installations', exact: true }).click();
    await page.getByRole('heading', { name: 'Installations of Acme Shop' }).waitFor();
    // The browser lists alice's iPhone; her user id opens her page.
    await page
      .getByRole('row', { name: /alice-iphone/ })
      .getByRole('link', { name: 'alice', exact: true })
      .click();
    await page.getByRole('heading', { name: 'User alice', level: 1 }).waitFor();
    await page.getByRole('heading', { name: 'alice-iphone', level: 2 }).waitFor();
    expect(await page.getByText('alice-elsewhere').count()).toBe(0);

    const topics = page.getByRole('table', { name: 'Topic subscriptions' });
    await expect(
      topics
        .getByRole('row', { name: /promotions/ })
        .locator('td')
        .allTextContents(),
    ).resolves.toEqual(['no', 'the user’s choice']);
    await expect(
      topics
        .getByRole('row', { name: /orders/ })
        .locator('td')
        .allTextContents(),
    ).resolves.toEqual(['no', 'the topic’s default']);
    expect(await topics.getByText('secret-sales').count()).toBe(0);

    await inboxRows().first().waitFor();
    await expect(inboxRows().locator('td:first-child a').allTextContents()).resolves.toEqual(['Your order shipped', 'Welcome aboard']);
    await expect(
      page
        .getByRole('row', { name: /Your order shipped/ })
        .locator('.badge')
        .allTextContents(),
    ).resolves.toEqual(['unread']);
    await expect(
      page
        .getByRole('row', { name: /Welcome aboard/ })
        .locator('.badge')
        .allTextContents(),
    ).resolves.toEqual(['read']);
    await page.getByText('1 unread message').waitFor();
    await shot('users-1-alice');
    await page.getByLabel('Show').selectOption({ label: 'Unread' });
    await page.waitForFunction(() => (globalThis as any).document.querySelectorAll('[aria-label="Inbox messages"] tbody tr').length === 1);
    await expect(inboxRows().locator('td:first-child a').allTextContents()).resolves.toEqual(['Your order shipped']);
    const body = await page.locator('main').textContent();
    expect(body).not.toContain('Bob’s private note');
    expect(body).not.toContain('Other app’s message');

    // A message opens the send that stored it.
    await page.getByRole('link', { name: 'Your order shipped' }).click();
    await page.getByRole('heading', { name: 'Your order shipped', level: 1 }).waitFor();
  });

  it('finds a user by searching their id; bob sees his inbox, not alice’s', async () => {
    await page.getByRole('link', { name: 'Users', exact: true }).click();
    await page.getByRole('heading', { name: 'Users of Acme Shop' }).waitFor();
    await page.getByLabel('User id').fill('bob');
    await page.getByRole('button', { name: 'Open' }).click();
    await page.getByRole('heading', { name: 'User bob', level: 1 }).waitFor();
    await inboxRows().first().waitFor();
    await expect(inboxRows().locator('td:first-child a').allTextContents()).resolves.toEqual(['Bob’s private note']);
    expect(await page.getByText('Welcome aboard').count()).toBe(0);
    await page.getByRole('heading', { name: 'bob-pixel', level: 2 }).waitFor();
  });

  it('lists the topics with subscribers, creates, edits and deletes one', async () => {
    await page.getByRole('link', { name: 'Topics', exact: true }).click();
    await page.getByRole('heading', { name: 'Topics of Acme Shop' }).waitFor();
    const table = page.getByRole('region', { name: 'Topics table' });
    // promotions: subscribed by default, alice said no, so bob; orders: nobody chose it.
    await expect(
      table
        .getByRole('row', { name: /^promotions/ })
        .locator('td.num')
        .textContent(),
    ).resolves.toBe('1');
    await expect(
      table
        .getByRole('row', { name: /^orders/ })
        .locator('td.num')
        .textContent(),
    ).resolves.toBe('0');
    expect(await table.getByText('secret-sales').count()).toBe(0);

    await page.getByLabel('Key').fill('breaking-news');
    await page.getByLabel('Name').fill('Breaking news');
    await page.getByLabel('Description (optional)').fill('Only what matters.');
    await page.getByRole('button', { name: 'Create topic' }).click();
    await page.getByText('Topic breaking-news saved.').waitFor();
    const created = table.getByRole('row', { name: /^breaking-news/ });
    await expect(created.locator('td.num').textContent()).resolves.toBe('2');
    await shot('topics-1-created');

    await created.getByRole('button', { name: 'Edit breaking-news' }).click();
    await page.getByRole('heading', { name: 'Edit topic breaking-news' }).waitFor();
    await page.getByLabel('Name').fill('Big news');
    await page.getByLabel('unsubscribed').check();
    await page.getByRole('button', { name: 'Save changes' }).click();
    await table.getByRole('row', { name: /^breaking-news Big news/ }).waitFor();
    await expect(created.locator('td.num').textContent()).resolves.toBe('0');
    // The app's own API sees the dashboard's change; the other app's topics are untouched.
    const listed = (await api(shop, '/topics')).body.data as { key: string; name: string; default: string }[];
    expect(listed.find((t) => t.key === 'breaking-news')).toMatchObject({ name: 'Big news', default: 'unsubscribed' });
    expect(((await api(other, '/topics')).body.data as { key: string }[]).map((t) => t.key)).toEqual(['secret-sales']);

    await created.getByRole('button', { name: 'Delete breaking-news' }).click();
    await created.getByRole('button', { name: 'Delete breaking-news' }).click();
    await page.getByText('Topic breaking-news deleted.').waitFor();
    await waitUntil(async () => (await table.getByRole('row', { name: /^breaking-news/ }).count()) === 0, 'the row to go');
    expect(((await api(shop, '/topics')).body.data as { key: string }[]).map((t) => t.key)).toEqual(['orders', 'promotions']);
  });

  it('fits a 390 px phone: the user page and the topics page', async () => {
    await page.setViewportSize(PHONE);
    // Through the page's own links (a reload would drop answers still being read by the checker above).
    await page.getByRole('link', { name: 'Users', exact: true }).click();
    await page.getByLabel('User id').fill('alice');
    await page.getByRole('button', { name: 'Open' }).click();
    await page.getByRole('heading', { name: 'User alice', level: 1 }).waitFor();
    await inboxRows().first().waitFor();
    await page.getByRole('table', { name: 'Topic subscriptions' }).waitFor();
    await expect(overflow()).resolves.toEqual({ page: 0, outside: [] });
    await shot('users-2-alice-390');
    await page.getByRole('link', { name: 'Topics', exact: true }).click();
    await page.getByRole('region', { name: 'Topics table' }).waitFor();
    await expect(overflow()).resolves.toEqual({ page: 0, outside: [] });
    await shot('topics-2-390');
    await page.setViewportSize(DESKTOP);
  });

  it('made no request to another host, logged no error, and every answer is as documented', async () => {
    expect(foreignRequests).toEqual([]);
    expect(consoleErrors).toEqual([]);
    expect(answerProblems.length).toBeGreaterThan(10);
    expect((await Promise.all(answerProblems)).filter(Boolean)).toEqual([]);
  });
});
