import { resolve } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchChromium } from '../support/chromium';
import { ApiModule } from '../../src/app.module';
import { AppsService } from '../../src/apps/apps.service';
import { useTestApp } from '../support/create-test-app';
import { newApp, newInstallation, type TestTenant } from '../support/factories';
import { DASHBOARD_ADMIN, DASHBOARD_SCREENSHOTS, startDashboardService } from '../support/dashboard';
import { watchDashboardPage } from '../support/dashboard-watch';
import { killAllServices, waitUntil } from '../support/processes';
import { configureProviders, type FakeProviders, seedInstallations, startFakeProviders } from '../support/providers';
import { WebhookReceiver } from '../support/webhook-receiver';
import { WebhooksService } from '../../src/webhooks/webhooks.service';

/**
 * Issue 16: the operator dashboard at /admin, in Debian's Chromium, against the built service
 * (APP_MODE=all: the api serving the pages and the worker delivering to the loopback providers).
 * As an operator would: log in, find the app, find the notification, read its numbers, look up an
 * installation, send from the composer and see it complete, cancel a scheduled one. No request may leave the
 * service's origin and the console must stay free of errors (but the one 422 the test provokes).
 * Screenshots of each page go to test/artifacts/admin/ (ignored by git).
 */
jest.setTimeout(120_000);

const SEEDED = 12;

describe('operator dashboard in Chromium (issue 16)', () => {
  let fakes: FakeProviders;
  beforeAll(async () => {
    fakes = await startFakeProviders();
  });
  // The built service uses this app's database; it is killed first (hooks run in declaration order).
  afterAll(() => killAllServices());
  // In-process, without ADMIN_USER / ADMIN_PASSWORD: seeds the data, and shows the dashboard off.
  // The webhook receiver is on loopback, which webhooks may call only when listed.
  const ctx = useTestApp(() => ({ module: ApiModule, env: { ...fakes.env, WEBHOOK_ALLOWED_HOSTS: '127.0.0.1' } }));
  afterAll(() => fakes?.stop());
  const receiver = new WebhookReceiver();
  beforeAll(() => receiver.start());
  afterAll(() => receiver.stop());

  let shop: TestTenant;
  let internal: TestTenant;
  let origin: string;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const foreignRequests: string[] = [];
  const consoleErrors: string[] = [];
  /** What is wrong with each /admin/api answer the page got, by the dashboard's OpenAPI document (null: nothing). */
  const answerProblems: Promise<string | null>[] = [];
  const ids: Record<string, string> = {};

  const api = async (path: string, body?: unknown, method = body === undefined ? 'GET' : 'POST') => {
    const res = await fetch(`${origin}/api/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${shop.token}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as { data: Record<string, any> } };
  };
  const shot = (name: string) => page.screenshot({ path: resolve(DASHBOARD_SCREENSHOTS, `${name}.png`), fullPage: true });
  /**
   * How a page fits its viewport: how far the page scrolls sideways, the tables not in a scrolling
   * box, how far each box reaches past the right edge, and what else sticks out.
   */
  const layoutOf = (target: Page) =>
    target.evaluate(() => {
      const doc = (globalThis as any).document;
      const view = doc.documentElement.clientWidth as number;
      const tables = [...doc.querySelectorAll('table')] as any[];
      return {
        page: (doc.documentElement.scrollWidth as number) - view,
        unboxed: tables.filter((t) => !t.closest('.table-scroll')).length,
        boxes: tables
          .map((t) => t.closest('.table-scroll'))
          .filter(Boolean)
          .map((box: any) => Math.round(box.getBoundingClientRect().right - view)),
        outside: ([...doc.querySelectorAll('main *, header *')] as any[])
          .filter((el) => !el.closest('.table-scroll') && el.getBoundingClientRect().right > view + 1)
          .map((el) => `${el.tagName.toLowerCase()}.${el.className}`),
      };
    });
  const figure = (label: string) => page.locator('.figure', { has: page.locator('dt', { hasText: new RegExp(`^${label}$`, 'i') }) }).locator('.figure-value');

  beforeAll(async () => {
    shop = await newApp(ctx, 'Acme Shop');
    internal = await newApp(ctx, 'Internal tools');
    // Caps and quiet hours for marketing sends (docs/api.md#pacing); the sends below are transactional.
    await ctx.get(AppsService).updateSettings(shop.appId, { frequency_cap: { max: 3, hours: 24 }, quiet_hours: { start: '22:00', end: '07:00' } });
    await configureProviders(ctx, shop.appId, fakes);
    const seeded = await seedInstallations(ctx, shop.appId, fakes, SEEDED);
    // One device whose token APNs refuses: a failed delivery with the provider's reason.
    fakes.apns.script(seeded[0].address, [{ status: 400, reason: 'BadDeviceToken' }]);
    // The shop's back end is down: its completion webhook fails and, with one attempt allowed, is given up.
    receiver.script('/down', [500, 500, 500, 500, 500]);
    await ctx.get(WebhooksService).create(shop.appId, receiver.url('/down'), 'notification.completed');
    await newInstallation(ctx, shop.token, { user_id: 'alice', tags: ['beta', 'vip'], device: { model: 'iPhone16,1', locale: 'fr-FR' } }, 'alice-iphone');

    origin = await startDashboardService(ctx, {
      ...fakes.env,
      WEBHOOK_MAX_ATTEMPTS: '1',
      WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
      APNS_CHANNELS_URL: fakes.apns.baseUrl,
    });

    // Sends as the app's back end would: a broadcast with a French variant, one to alice, one for tomorrow.
    const sale = await api('/notifications', {
      recipients: { all: true },
      notification: { title: 'Spring sale', body: 'Everything half price until Sunday', localizations: { fr: { title: 'Soldes de printemps' } } },
      options: { ttl: 3600, collapse_id: 'sale' },
    });
    ids.sale = sale.body.data.id;
    ids.digest = (
      await api('/notifications', { recipients: { user_ids: ['alice'] }, notification: { title: 'Weekly digest', body: 'Your week' } })
    ).body.data.id;
    ids.tomorrow = (
      await api('/notifications', {
        recipients: { all: true },
        notification: { title: 'Tomorrow news', body: 'Later' },
        send_at: new Date(Date.now() + 86_400_000).toISOString(),
      })
    ).body.data.id;
    // A Live Activity on alice's iPhone with two updates sent, one not updated yet, and a broadcast channel (docs/api.md#live-activities).
    const activity = (id: string) =>
      api(`/live-activities/${id}`, { installation_id: 'alice-iphone', attributes_type: 'DeliveryAttributes', push_token: 'ab'.repeat(32) }, 'PUT');
    expect((await activity('order-1001')).status).toBe(201);
    for (const step of [1, 2]) {
      expect((await api('/live-activities/order-1001/updates', { event: 'update', content_state: { step } })).status).toBe(202);
    }
    expect((await activity('order-1002')).status).toBe(201);
    ids.channel = (await api('/live-activity-channels', { storage: 'most_recent' })).body.data.id;
    const completed = async (id: string) => (await api(`/notifications/${id}`)).body.data.completed_at !== null;
    await waitUntil(async () => (await completed(ids.sale)) && (await completed(ids.digest)), 'the sends to complete', 30_000);
    const givenUp = async () => (await ctx.db.query<{ n: number }[]>(`SELECT count(*)::int AS n FROM webhook_messages WHERE status = 'failed'`))[0].n;
    await waitUntil(async () => (await givenUp()) === 2, 'the two completion webhooks to be given up', 20_000);
    // The devices report back: 4 received, 3 displayed, 2 opened.
    for (const [n, types] of [
      [1, ['received', 'displayed', 'opened']],
      [2, ['received', 'displayed', 'opened']],
      [3, ['received', 'displayed']],
      [5, ['received']],
    ] as const) {
      for (const type of types) expect((await api(`/notifications/${ids.sale}/events`, { installation_id: `inst-user-${n}`, type })).status).toBe(202);
    }

    browser = await launchChromium();
    // A viewer in Paris: times show in their zone, UTC on hover.
    context = await browser.newContext({ locale: 'en-US', timezoneId: 'Europe/Paris', viewport: { width: 1280, height: 900 } });
    page = await context.newPage();
    watchDashboardPage(page, origin, { foreignRequests, consoleErrors, answerProblems });
  });

  afterAll(async () => {
    await browser?.close();
  });

  it('answers 401 to the API and shows only the login form without a session', async () => {
    expect((await fetch(`${origin}/admin/api/apps`)).status).toBe(401);
    expect((await fetch(`${origin}/admin/api/session`, { method: 'POST', headers: { authorization: 'Basic b3BzOndyb25n' } })).status).toBe(401);
    await page.goto(`${origin}/admin/apps`);
    await page.getByRole('heading', { name: 'Log in to Push admin' }).waitFor();
    expect(await page.getByText('Acme Shop').count()).toBe(0);
    await shot('1-login');
  });

  it('logs in, then shows the overview: deliveries per minute and the queues', async () => {
    // With the keyboard alone: the user name field has the focus, Tab goes to the password, Enter logs in.
    await page.keyboard.type(DASHBOARD_ADMIN.user);
    await page.keyboard.press('Tab');
    await page.keyboard.type(DASHBOARD_ADMIN.password);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Apps', level: 1 }).waitFor();
    const cookie = (await context.cookies()).find((c) => c.name === 'pns_admin')!;
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/admin' });

    // The opened page's heading has the focus; backwards from it (the bootstrap owner's header): Log
    // out, their sessions, Audit log, Domains, Operators, Apps, Overview. A focused link shows a visible outline.
    for (let i = 0; i < 7; i++) await page.keyboard.press('Shift+Tab');
    const overviewLink = page.getByRole('link', { name: 'Overview' });
    await expect(overviewLink.evaluate((a) => (a as any).ownerDocument.activeElement === a)).resolves.toBe(true);
    await expect(overviewLink.evaluate((a) => (globalThis as any).getComputedStyle(a).outlineStyle)).resolves.toBe('solid');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
    // The sale to 13 installations (12 accepted, one token refused) and the digest to alice's phone.
    await expect(figure('Accepted').textContent()).resolves.toBe('13');
    await expect(figure('Failed').textContent()).resolves.toBe('1');
    await page.getByRole('row', { name: /^fanout/ }).waitFor();
    await page.getByRole('row', { name: /^deliver / }).waitFor();
    // Small sends' own queue (docs/api.md#small-sends).
    await page.getByRole('row', { name: /^deliver-small / }).waitFor();
    // The two completed sends' webhooks, each answered 500 and given up.
    const webhooks = page.getByRole('region', { name: 'Webhook failures' });
    await expect(webhooks.locator('.figure-value').first().textContent()).resolves.toBe('2');
    await expect(webhooks.getByRole('row', { name: /\/down notification\.completed failed 1 .*500/ }).count()).resolves.toBe(2);
    await shot('2-overview');
  });

  it('finds the app among every app, with its installations, credentials and settings', async () => {
    await page.getByRole('link', { name: 'Apps', exact: true }).click();
    const row = page.getByRole('row', { name: /Acme Shop/ });
    await row.waitFor();
    // 12 seeded (6 iOS, 3 Android, 3 web) and alice's iPhone; 3 sends in 24 h.
    await expect(row.locator('td').allTextContents()).resolves.toEqual([
      '7',
      '3',
      '3',
      '0',
      '13',
      expect.stringMatching(
        /^APNs: com\.example\.pushapp \(sandbox, key \w+\)FCM: project project-\w+Web Push: mailto:ops@example\.comHuawei Push Kit: not configured$/,
      ),
      '3',
      'Frequency cap: 3 marketing per 24 hQuiet hours: 22:00–07:00, device timeIdentity verification: offInbox kept: 90 days',
    ]);
    await expect(
      page
        .getByRole('row', { name: /Internal tools/ })
        .locator('td')
        .last()
        .textContent(),
    ).resolves.toBe('Frequency cap: offQuiet hours: offIdentity verification: offInbox kept: 90 days');
    await page.getByRole('row', { name: /Internal tools/ }).waitFor();
    expect(await page.content()).not.toMatch(/PRIVATE KEY|private_key/);
    await shot('3-apps');
    await page.setViewportSize({ width: 390, height: 844 });
    await shot('3-apps-390');
    await page.setViewportSize({ width: 1280, height: 900 });
    await row.getByRole('link', { name: 'Acme Shop' }).click();
    await page.getByRole('heading', { name: 'Notifications of Acme Shop' }).waitFor();
  });

  it('finds the notification by its title and reads its numbers', async () => {
    await page.getByLabel('Search by title').fill('spring');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.waitForURL(/search=spring/);
    // The previous page stays on screen until the search answers.
    await page.waitForFunction(() => (globalThis as any).document.querySelectorAll('table.data tbody tr').length === 1);
    const rows = page.locator('table.data tbody tr');
    await expect(rows.first().textContent()).resolves.toMatch(/Spring sale.*every installation.*completed/);
    // One token refused: completed, but not the green of a full success; the counts beside it (issue 31 item 11).
    await expect(rows.first().locator('.badge').textContent()).resolves.toBe('completed with failures');
    await expect(rows.first().locator('td.num').allTextContents()).resolves.toEqual(['12', '1', '0']);
    await expect(rows.first().getByRole('list', { name: 'Funnel' }).textContent()).resolves.toBe(
      'accepted 12received 4 (33.3%)displayed 3 (25%)opened 2 (16.7%)',
    );
    await shot('4-notifications');

    await page.getByRole('link', { name: 'Spring sale' }).click();
    await page.getByRole('heading', { name: 'Spring sale', level: 1 }).waitFor();
    await expect(figure('Installations').textContent()).resolves.toBe('13');
    await expect(figure('Accepted').textContent()).resolves.toBe('12');
    await expect(figure('Failed').textContent()).resolves.toBe('1');
    await expect(figure('Opened').textContent()).resolves.toBe('2');
    await page.getByRole('row', { name: 'fr Soldes de printemps –' }).waitFor();
    await page.getByText('collapse_id').waitFor();
    // Completed: no cancel button. Times in Paris, UTC on hover.
    expect(await page.getByRole('button', { name: 'Cancel notification' }).count()).toBe(0);
    const created = page.locator('dt:has-text("Created") + dd time');
    await expect(created.getAttribute('title')).resolves.toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/);
    await page.getByRole('img', { name: /Deliveries per minute/ }).waitFor();
    await shot('5-notification');
  });

  it("reads the notification's trace and filters it by status and by reason", async () => {
    const trace = page.getByRole('region', { name: 'Deliveries, one per installation' });
    await trace.getByText('13 deliveries shown.').waitFor();
    await trace.getByRole('row', { name: /^inst-user-3 user-3 web accepted/ }).waitFor();
    // alice's phone is French: it got the `fr` variant; the others, the default (issue 31 item 12).
    const localization = async (installation: string) => {
      const headers = await trace.getByRole('columnheader').allTextContents();
      return trace
        .getByRole('row', { name: new RegExp(`^${installation} `) })
        .locator('td')
        .nth(headers.indexOf('Localization') - 1)
        .textContent();
    };
    await expect(localization('alice-iphone')).resolves.toBe('fr');
    await expect(localization('inst-user-3')).resolves.toBe('default');
    await trace.getByLabel('Status').selectOption('failed');
    await trace.getByRole('button', { name: 'Filter' }).click();
    await trace.getByText('1 delivery shown with status failed.').waitFor();
    // The reason, and what it means in plain words (issue 31 item 12).
    await expect(trace.locator('tbody tr').textContent()).resolves.toMatch(
      /^inst-user-0user-0iosfailedBadDeviceTokenAPNs: the device token is not valid for this app .*production\)\.1/,
    );
    await trace.getByLabel('Status').selectOption('');
    await trace.getByLabel('Reason').fill('BadDeviceToken');
    await trace.getByRole('button', { name: 'Filter' }).click();
    await trace.getByText('1 delivery shown with reason BadDeviceToken.').waitFor();
    await trace.getByLabel('Reason').fill('NoCredentials');
    await trace.getByRole('button', { name: 'Filter' }).click();
    await trace.getByText('0 deliveries shown with reason NoCredentials.').waitFor();
    await trace.getByLabel('Reason').fill('BadDeviceToken');
    await trace.getByRole('button', { name: 'Filter' }).click();
    await trace.getByText('1 delivery shown with reason BadDeviceToken.').waitFor();
    await shot('5b-trace-filtered');
  });

  it('looks up an installation by user id: its fields, tags and the notifications it got', async () => {
    await page.getByRole('link', { name: 'Installations' }).click();
    await page.getByLabel('Look up by').selectOption('user_id');
    await page.getByLabel('User id').fill('alice');
    await page.getByRole('button', { name: 'Look up' }).click();
    const card = page.getByRole('article', { name: 'alice-iphone' });
    await card.waitFor();
    await expect(card.locator('.tag').allTextContents()).resolves.toEqual(['beta', 'vip']);
    await expect(card.textContent()).resolves.toMatch(/valid/);
    await card.getByRole('row', { name: /Weekly digest .* accepted/ }).waitFor();
    await card.getByRole('row', { name: /Spring sale .* accepted/ }).waitFor();
    expect(await card.textContent()).not.toContain('push_token');
    await shot('6-installation');
  });

  it('browses installations with a filter built from conditions: the count, the matching rows, one opened (docs/api.md#audience-filters)', async () => {
    await page.getByRole('link', { name: 'Installations' }).click();
    const browse = page.getByRole('region', { name: 'Browse' });
    const count = browse.getByRole('status', { name: 'Audience count' });
    // No condition: every live installation, the 12 seeded and alice's phone.
    await count.filter({ hasText: `${SEEDED + 1} installations` }).waitFor();
    await browse.getByRole('button', { name: 'Add condition' }).click();
    await browse.getByLabel('Field 1').selectOption('language');
    await browse.getByLabel('Op 1').selectOption('eq');
    await browse.getByLabel('Value 1').fill('fr');
    await browse.getByRole('button', { name: 'Add condition' }).click();
    await browse.getByLabel('Field 2').selectOption('tags');
    await browse.getByLabel('Op 2').selectOption('contains');
    await browse.getByLabel('Value 2').fill('vip');
    await browse.getByLabel('Match').selectOption('and');
    await browse.getByRole('button', { name: 'Apply' }).click();
    await count.filter({ hasText: /^1 installations · 1 sendable · 1 users \(iOS 1, Android 0, web 0, Huawei 0\)$/ }).waitFor();
    const rows = browse.getByRole('table', { name: 'Installations' }).getByRole('row');
    await rows.filter({ hasText: 'alice-iphone' }).waitFor();
    await expect(rows.count()).resolves.toBe(2);
    await shot('6b-installations-filtered');
    // A condition that cannot apply is refused with the API's message.
    await browse.getByLabel('Field 2').selectOption('app_version');
    await browse.getByLabel('Op 2').selectOption('gte');
    await browse.getByLabel('Value 2').fill('not a version');
    await browse.getByRole('button', { name: 'Apply' }).click();
    await browse.getByText(/filter\.and\.1\.value field must be a version/).waitFor();
    await browse.getByLabel('Value 2').fill('1');
    await browse.getByRole('button', { name: 'Apply' }).click();
    await count.filter({ hasText: /^0 installations/ }).waitFor();
    await browse.getByLabel('Match').selectOption('or');
    await browse.getByRole('button', { name: 'Apply' }).click();
    await count.filter({ hasText: /^1 installations/ }).waitFor();
    // Each row and the opened installation say its push service (docs/api.md#push-provider).
    await expect(rows.filter({ hasText: 'alice-iphone' }).getByRole('cell', { name: 'APNs', exact: true }).count()).resolves.toBe(1);
    await rows.filter({ hasText: 'alice-iphone' }).getByRole('link', { name: 'alice-iphone' }).click();
    const card = page.getByRole('article', { name: 'alice-iphone' });
    await card.waitFor();
    await card
      .getByRole('definition')
      .filter({ hasText: /^APNs$/ })
      .waitFor();
  });

  it('sends from the composer: errors next to the fields, then the sent notification completes', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Compose' }).click();
    await page.getByLabel('Users by id').check();
    await page.getByLabel('User ids').fill('alice');
    await page.getByLabel('Message', { exact: true }).fill('Is this thing on?');
    await page.getByRole('button', { name: 'Send' }).click();
    const title = page.getByLabel('Title', { exact: true });
    await page.locator('#compose-title-error').waitFor();
    await expect(title.getAttribute('aria-invalid')).resolves.toBe('true');
    await expect(page.locator('#compose-title-error').textContent()).resolves.toBe('The title must not be empty.');
    await shot('7-send-errors');

    await title.fill('Test from the dashboard');
    await page.getByLabel('Link to open (optional)').fill('https://shop.example.com/sale');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.getByRole('heading', { name: 'Test from the dashboard', level: 1 }).waitFor();
    await page.locator('.page-actions .badge', { hasText: 'completed' }).waitFor({ timeout: 20_000 });
    await expect(figure('Accepted').textContent()).resolves.toBe('1');
    // Its trace, first read before the fan-out ran, shows the delivery to alice's phone.
    const trace = page.getByRole('region', { name: 'Deliveries, one per installation' });
    await trace.getByText('1 delivery shown.').waitFor();
    await trace.getByRole('row', { name: /^alice-iphone alice ios accepted/ }).waitFor();
    await shot('8-test-sent');
  });

  it('sends to an audience filter built with controls: the vip installations only', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Compose' }).click();
    await page.getByRole('button', { name: 'Add condition' }).click();
    await page.getByLabel('Field 1').selectOption({ label: 'tags' });
    await page.getByLabel('Comparison 1').selectOption({ label: 'include' });
    await page.getByLabel('Value 1').fill('vip');
    await page
      .getByRole('status', { name: 'Audience count' })
      .filter({ hasText: /^1 installations/ })
      .waitFor();
    await page.getByLabel('Title', { exact: true }).fill('For our vips');
    await page.getByLabel('Message', { exact: true }).fill('Early access');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.getByRole('heading', { name: 'For our vips', level: 1 }).waitFor();
    await page.locator('.page-actions .badge', { hasText: 'completed' }).waitFor({ timeout: 20_000 });
    await expect(figure('Accepted').textContent()).resolves.toBe('1');
    await page
      .getByRole('region', { name: 'Deliveries, one per installation' })
      .getByRole('row', { name: /^alice-iphone alice ios accepted/ })
      .waitFor();
  });

  it('cancels a scheduled notification', async () => {
    await page.getByRole('link', { name: 'Notifications', exact: true }).click();
    await page
      .getByRole('row', { name: /Tomorrow news .* scheduled/ })
      .getByRole('link', { name: 'Tomorrow news' })
      .click();
    await page.getByRole('heading', { name: 'Tomorrow news', level: 1 }).waitFor();
    page.once('dialog', (dialog) => void dialog.accept());
    await page.getByRole('button', { name: 'Cancel notification' }).click();
    await page.locator('.page-actions .badge', { hasText: 'canceled' }).waitFor();
    expect(await page.getByRole('button', { name: 'Cancel notification' }).count()).toBe(0);
    await shot('9-canceled');
    expect((await api(`/notifications/${ids.tomorrow}`)).body.data.canceled_at).not.toBeNull();
  });

  it('counts the skipped deliveries per minute: the cancelled send on its chart and on the overview (issue 31 item 10)', async () => {
    // The cancel made the fan-out skip all 13 installations (Canceled): its chart and the overview count them.
    await page.getByRole('heading', { name: 'Tomorrow news', level: 1 }).waitFor();
    await figure('Skipped').filter({ hasText: '13' }).waitFor();
    const numbers = page.locator('details', { hasText: 'Numbers of “Deliveries per minute”' });
    await numbers.locator('summary').click();
    const skippedColumn = async (table: ReturnType<Page['locator']>) => {
      const headers = await table.locator('thead th').allTextContents();
      const cells = await table.locator(`tbody tr td:nth-child(${headers.indexOf('skipped') + 1})`).allTextContents();
      return cells.reduce((sum, cell) => sum + Number(cell.replace(/\D/g, '')), 0);
    };
    await expect(skippedColumn(numbers.locator('table'))).resolves.toBe(13);
    await page.getByRole('link', { name: 'Overview' }).click();
    await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
    // The page shows its last answer first, then the fresh one.
    await figure('Skipped').filter({ hasText: /^13$/ }).waitFor();
    await shot('10-overview-skipped');
  });

  it('sends to a tag, scheduled for tomorrow (issue 31 item 14)', async () => {
    await page.getByRole('link', { name: 'Apps', exact: true }).click();
    await page.getByRole('link', { name: 'Acme Shop' }).click();
    await page.getByRole('link', { name: 'New notification' }).click();
    await page.getByLabel('Installations with tags').check();
    await page.getByLabel('Tags', { exact: true }).fill('beta');
    await page.getByLabel('Title', { exact: true }).fill('Beta preview');
    await page.getByLabel('Message', { exact: true }).fill('Tomorrow morning');
    const tomorrow = new Date(Date.now() + 86_400_000);
    // The field takes the viewer's wall-clock time (Paris here): YYYY-MM-DDTHH:MM.
    const local = new Intl.DateTimeFormat('sv-SE', { timeZone: 'Europe/Paris', dateStyle: 'short', timeStyle: 'short' }).format(tomorrow).replace(' ', 'T');
    await page.getByLabel('Send at (your time zone)').fill(local);
    await shot('11-send-tags-scheduled');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.getByRole('heading', { name: 'Beta preview', level: 1 }).waitFor();
    await page.locator('.page-actions .badge', { hasText: 'scheduled' }).waitFor();
    await page.locator('dt:has-text("Target") + dd', { hasText: 'tags: beta' }).waitFor();
    const sendAt = await page.locator('dt:has-text("Send at") + dd time').getAttribute('datetime');
    expect(Math.abs(Date.parse(sendAt!) - tomorrow.getTime())).toBeLessThan(60_000);
  });

  it("lists the app's Live Activities with their last update, and its channels (issue 30 item 6)", async () => {
    await page.getByRole('link', { name: 'Apps', exact: true }).click();
    await page.getByRole('link', { name: 'Acme Shop' }).click();
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Live Activities' }).click();
    await page.getByRole('heading', { name: 'Live Activities of Acme Shop', level: 1 }).waitFor();
    const activities = page.getByRole('region', { name: 'Live Activities table' });
    // The worker sends the two updates in order: the second is the last, accepted by APNs.
    await activities.getByRole('row', { name: /^order-1001 alice-iphone DeliveryAttributes active .* update 2 accepted / }).waitFor();
    await activities.getByRole('row', { name: /^order-1002 alice-iphone DeliveryAttributes active .* no update yet$/ }).waitFor();
    await expect(activities.locator('tbody tr').first().locator('th').textContent()).resolves.toBe('order-1002');
    const channels = page.getByRole('region', { name: 'Broadcast channels table' });
    await channels.getByRole('row', { name: `${ids.channel} most recent message` }).waitFor();
    await shot('13-live-activities');
    await page.setViewportSize({ width: 390, height: 844 });
    await shot('13-live-activities-390');
    await page.setViewportSize({ width: 1280, height: 900 });
    // An app without any: both empty states.
    await page.goto(`${origin}/admin/apps/${internal.appId}/live-activities`);
    await page.getByText('No Live Activity yet.').waitFor();
    await page.getByText('No broadcast channel.').waitFor();
    await shot('13-live-activities-empty');
  });

  it('fits a 390 px screen on every page: no sideways scroll of the page, tables scroll in their own box (issue 31 item 13)', async () => {
    const phone = await context.newPage();
    phone.on('console', (message) => {
      if (message.type() === 'error') consoleErrors.push(message.text());
    });
    phone.on('pageerror', (error) => consoleErrors.push(`page error: ${error.message}`));
    const pages: [string, string, string][] = [
      ['overview', '/admin', 'Overview'],
      ['apps', '/admin/apps', 'Apps'],
      ['notifications', `/admin/apps/${shop.appId}`, 'Notifications of Acme Shop'],
      ['notification', `/admin/apps/${shop.appId}/notifications/${ids.sale}`, 'Spring sale'],
      ['installations', `/admin/apps/${shop.appId}/installations?user_id=alice`, 'Installations'],
      ['live-activities', `/admin/apps/${shop.appId}/live-activities`, 'Live Activities of Acme Shop'],
      ['send', `/admin/apps/${shop.appId}/send`, 'Compose for Acme Shop'],
      ['missing', '/admin/no/such/page', ''],
    ];
    for (const width of [390, 1280]) {
      await phone.setViewportSize({ width, height: 844 });
      for (const [name, path, heading] of pages) {
        await phone.goto(`${origin}${path}`);
        if (heading) await phone.getByRole('heading', { name: heading, level: 1 }).waitFor();
        else await phone.getByRole('alert').waitFor();
        await phone.waitForLoadState('networkidle');
        const layout = await layoutOf(phone);
        expect({ name, width, ...layout }).toEqual({ name, width, page: 0, unboxed: 0, boxes: layout.boxes.map(() => expect.any(Number)), outside: [] });
        for (const overhang of layout.boxes) expect(overhang).toBeLessThanOrEqual(0);
        await phone.screenshot({ path: resolve(DASHBOARD_SCREENSHOTS, `12-${width}-${name}.png`), fullPage: true });
      }
    }
    // The login form, without a session.
    const visitor = await browser.newContext({ locale: 'en-US', viewport: { width: 390, height: 844 } });
    const door = await visitor.newPage();
    await door.goto(`${origin}/admin`);
    await door.getByRole('heading', { name: 'Log in to Push admin' }).waitFor();
    await expect(layoutOf(door)).resolves.toEqual({ page: 0, unboxed: 0, boxes: [], outside: [] });
    await door.screenshot({ path: resolve(DASHBOARD_SCREENSHOTS, '12-390-login.png'), fullPage: true });
    await visitor.close();
    // On a phone each notification is a two-line card (admin-apps-console.e2e measures its height): the
    // table fits its box, with no sideways scroll.
    await phone.setViewportSize({ width: 390, height: 844 });
    await phone.goto(`${origin}/admin/apps/${shop.appId}`);
    const box = phone.getByRole('region', { name: 'Notifications table' });
    await box.waitFor();
    await expect(box.evaluate((el: any) => el.scrollWidth <= el.clientWidth)).resolves.toBe(true);
    await phone.close();
  });

  it('made no request to another host, and logged no error but the provoked 422', async () => {
    expect(foreignRequests).toEqual([]);
    // 422s provoked on purpose: the send without a title, the filter with a bad version.
    expect(consoleErrors.filter((text) => !/status of 422/.test(text))).toEqual([]);
    // Every answer the page got is one the dashboard's OpenAPI document describes (its types are generated from it).
    expect(answerProblems.length).toBeGreaterThan(20);
    expect((await Promise.all(answerProblems)).filter(Boolean)).toEqual([]);
  });

  it('refuses a state-changing call without the CSRF token, even with the session cookie', async () => {
    const cookie = (await context.cookies()).find((c) => c.name === 'pns_admin')!;
    const res = await fetch(`${origin}/admin/api/apps/${shop.appId}/notifications/${ids.sale}/cancel`, {
      method: 'POST',
      headers: { cookie: `pns_admin=${cookie.value}` },
    });
    expect(res.status).toBe(403);
    const read = await fetch(`${origin}/admin/api/apps`, { headers: { cookie: `pns_admin=${cookie.value}` } });
    expect(read.status).toBe(200);
  });

  it('limits failed logins: after 10 failures even the right password is refused for a while', async () => {
    const login = (password: string) =>
      fetch(`${origin}/admin/api/session`, {
        method: 'POST',
        headers: { authorization: `Basic ${Buffer.from(`${DASHBOARD_ADMIN.user}:${password}`).toString('base64')}` },
      });
    // One failure was counted by the first test.
    for (let i = 0; i < 9; i++) expect((await login('wrong')).status).toBe(401);
    const blocked = await login('wrong');
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await login(DASHBOARD_ADMIN.password)).status).toBe(429);
  });

  it('is off (404, like any unknown route) without ADMIN_USER and ADMIN_PASSWORD', async () => {
    for (const path of ['/admin', '/admin/apps', '/admin/api/apps', '/admin/api/session']) {
      expect({ path, status: (await ctx.http().get(path)).status }).toEqual({ path, status: 404 });
    }
    expect((await ctx.http().post('/admin/api/session').set('authorization', 'Basic b3BzOnBhc3M=')).status).toBe(404);
  });
});
