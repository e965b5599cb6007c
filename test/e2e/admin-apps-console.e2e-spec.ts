import { mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { resolve } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { ApiModule } from '../../src/app.module';
import { generateApnsKey } from '../fakes';
import { launchChromium } from '../support/chromium';
import { useTestApp } from '../support/create-test-app';
import { DASHBOARD_SCREENSHOTS, startDashboardService, logInToDashboard } from '../support/dashboard';
import { watchDashboardPage } from '../support/dashboard-watch';
import { killAllServices, waitUntil } from '../support/processes';
import { APNS_TOPIC, type FakeProviders, startFakeProviders } from '../support/providers';

/**
 * Issue 54 items 4, 6 and 7 in Debian's Chromium against the built service (APP_MODE=all), at
 * desktop and phone widths: an owner creates an app, uploads its APNs key and FCM service account,
 * generates VAPID keys, runs the check, creates and revokes a token; the analytics page; and the
 * walk's four fixes (a Live Activity start's other platforms, dry runs labelled, the list at 390 px,
 * times with their zone). Screenshots go to test/artifacts/admin/ (ignored by git).
 */
jest.setTimeout(180_000);

const DESKTOP = { width: 1280, height: 900 };
const PHONE = { width: 390, height: 844 };

describe("operator dashboard's app settings and analytics in Chromium (issue 54)", () => {
  let fakes: FakeProviders;
  beforeAll(async () => {
    fakes = await startFakeProviders();
  });
  afterAll(() => killAllServices());
  const ctx = useTestApp(() => ({ module: ApiModule, env: fakes.env }));
  afterAll(() => fakes?.stop());

  let origin: string;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let appId: string;
  let token: string;
  const foreignRequests: string[] = [];
  const consoleErrors: string[] = [];
  const answerProblems: Promise<string | null>[] = [];
  /** In-page navigation, as the dashboard's links do: no unload cuts off an answer the watch is reading. */
  const go = (path: string) =>
    page.evaluate((to) => {
      const w = globalThis as any;
      w.history.pushState(null, '', to);
      w.dispatchEvent(new w.Event('pns-admin:navigate'));
    }, `/admin${path}`);
  const shot = (name: string) => page.screenshot({ path: resolve(DASHBOARD_SCREENSHOTS, `${name}.png`), fullPage: true });
  const api = async (path: string, body?: unknown) => {
    const res = await fetch(`${origin}/api/v1${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as { data: any } };
  };

  beforeAll(async () => {
    origin = await startDashboardService(ctx, { ...fakes.env });

    browser = await launchChromium();
    context = await browser.newContext({ locale: 'en-US', timezoneId: 'Europe/Paris', viewport: DESKTOP });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
    page = await context.newPage();
    watchDashboardPage(page, origin, { foreignRequests, consoleErrors, answerProblems });
    await logInToDashboard(page, origin);
  });

  afterAll(async () => {
    await browser?.close();
  });

  it('creates an app, uploads its APNs key and service account, generates VAPID keys and checks them', async () => {
    await page.getByRole('link', { name: 'Apps', exact: true }).click();
    await page.getByLabel('New app').fill('Garden Shop');
    await page.getByRole('button', { name: 'Create app' }).click();
    await page.getByRole('heading', { name: 'Settings of Garden Shop', level: 1 }).waitFor();
    appId = /\/apps\/([^/]+)\/settings/.exec(page.url())![1];

    const key = generateApnsKey();
    fakes.apns.addKey(key);
    const dir = resolve(tmpdir(), `h36-e2e-${process.pid}`);
    mkdirSync(dir, { recursive: true });
    writeFileSync(resolve(dir, `AuthKey_${key.keyId}.p8`), key.privateKeyPem);
    const account = fakes.fcm.createServiceAccount('garden-shop');
    writeFileSync(resolve(dir, 'service-account.json'), JSON.stringify(account));

    await page.getByLabel('Auth key (.p8 file)').setInputFiles(resolve(dir, `AuthKey_${key.keyId}.p8`));
    await page.getByLabel('Key ID').fill(key.keyId);
    await page.getByLabel('Team ID').fill(key.teamId);
    await page.getByLabel('Topic (bundle id)').fill(APNS_TOPIC);
    await page.getByLabel('Environment').selectOption('sandbox');
    await page.getByRole('button', { name: 'Save APNs key' }).click();
    await page.getByText(`${APNS_TOPIC}, key ${key.keyId}, team ${key.teamId}, sandbox`).waitFor();

    await page.getByLabel('Service account (JSON key file)').setInputFiles(resolve(dir, 'service-account.json'));
    await page.getByRole('button', { name: 'Save service account' }).click();
    await page.getByText(`project garden-shop (${account.client_email})`).waitFor();

    await page.getByLabel('Contact (mailto: or https:)').fill('mailto:ops@example.com');
    await page.getByRole('button', { name: 'Save VAPID keys' }).click();
    const publicKey = page.locator('code.public-key');
    await publicKey.waitFor();
    const shown = (await publicKey.textContent())!;
    expect(shown).toMatch(/^[A-Za-z0-9_-]{87}$/);
    await page.getByRole('button', { name: 'Copy the public key' }).click();
    await page.getByRole('button', { name: 'Copied' }).waitFor();
    expect(await page.evaluate(() => (globalThis as any).navigator.clipboard.readText())).toBe(shown);

    await page.getByRole('button', { name: 'Check the credentials' }).click();
    const checks = page.getByRole('table', { name: 'Credential check' });
    await checks.waitFor();
    await expect(checks.getByRole('row', { name: /apns/ }).locator('.badge').textContent()).resolves.toBe('valid');
    await expect(checks.getByRole('row', { name: /fcm/ }).locator('.badge').textContent()).resolves.toBe('valid');
    await expect(
      checks
        .getByRole('row', { name: /web-push/ })
        .locator('.badge')
        .textContent(),
    ).resolves.toBe('valid');
    const text = (await page.locator('main').textContent())!;
    expect(text).not.toContain('PRIVATE KEY');
    await shot('apps-1-credentials-desktop');
  });

  it('creates a token shown once, which the API accepts, and revokes it', async () => {
    await page.getByLabel('Name (optional)').fill('backend');
    await page.getByRole('checkbox', { name: 'notifications:send' }).check();
    await page.getByRole('checkbox', { name: 'notifications:read' }).check();
    await page.getByRole('checkbox', { name: 'installations:write' }).check();
    await page.getByRole('button', { name: 'Create token' }).click();
    token = (await page.locator('code.new-token').textContent())!;
    expect(token).toMatch(/^pns_/);
    expect((await api('/notifications?limit=1')).status).toBe(200);
    await shot('apps-2-token-shown');
    await page.getByRole('button', { name: 'Done' }).first().click();
    expect(await page.getByText(token).count()).toBe(0);
    await page.getByRole('button', { name: 'Revoke backend' }).click();
    await page.getByRole('table', { name: 'API tokens' }).getByText('revoked').waitFor();
    expect((await api('/notifications?limit=1')).status).toBe(401);
  });

  it('shows the analytics page with a chart and a table beside each, and a send’s funnel by platform and CSV', async () => {
    // A fresh token for the sends; the page's own was revoked.
    await page.getByLabel('Name (optional)').fill('sender');
    await page.getByRole('checkbox', { name: '*', exact: true }).check();
    await page.getByRole('button', { name: 'Create token' }).click();
    token = (await page.locator('code.new-token').textContent())!;
    for (const [id, platform] of [
      ['ann-phone', 'ios'],
      ['ann-pixel', 'android'],
      ['ann-browser', 'web'],
    ] as const) {
      const { endpoint, keys } = fakes.web.createSubscription();
      const subscription = { endpoint, keys };
      const body =
        platform === 'web'
          ? { platform, user_id: 'ann', web_push_subscription: subscription, permission: 'granted' }
          : { platform, user_id: 'ann', push_token: platform === 'ios' ? 'a'.repeat(64) : `fcm-${id}`, permission: 'granted' };
      const res = await fetch(`${origin}/api/v1/installations/${id}`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      expect(res.status).toBeLessThan(300);
    }
    const live = await api('/notifications', {
      recipients: { user_ids: ['ann'] },
      notification: { title: 'Your delivery is on its way', body: 'Track it live' },
      options: { live_activity: { attributes_type: 'DeliveryAttributes', attributes: { order: '42' }, content_state: { eta: 10 } } },
    });
    expect(live.status).toBe(202);
    const dry = await api('/notifications', {
      recipients: { user_ids: ['ann'] },
      notification: { title: 'Trying the sale', body: 'b' },
      options: { dry_run: true },
    });
    expect(dry.status).toBe(202);
    for (const id of [live.body.data.id, dry.body.data.id]) {
      await waitUntil(async () => (await api(`/notifications/${id}`)).body.data.completed_at !== null, 'the send to complete', 60_000);
    }

    await page.getByRole('link', { name: 'Analytics', exact: true }).click();
    await page.getByRole('heading', { name: 'Analytics of Garden Shop', level: 1 }).waitFor();
    await page.getByRole('table', { name: 'Numbers of sends' }).waitFor();
    expect(await page.locator('.chart-beside canvas').count()).toBeGreaterThanOrEqual(2);
    await shot('analytics-1-desktop');

    // The Live Activity start's page: its Android and web rows say why, not options.platforms.
    await go(`/apps/${appId}/notifications/${live.body.data.id}`);
    await page.getByRole('heading', { name: 'Funnel by platform' }).waitFor();
    await page.getByRole('table', { name: 'Funnel by platform' }).waitFor();
    const csv = await page.evaluate(async (url) => (await fetch(url)).text(), `/admin/api/apps/${appId}/notifications/${live.body.data.id}/trace.csv`);
    expect(csv.split('\n')[0]).toMatch(/^installation_id,user_id,platform,status,reason/);
    expect(csv).toContain('ann-pixel');
    await page.getByText('A Live Activity start reaches iOS only, so the other platforms are left out.').first().waitFor();
    expect(await page.getByText('The send’s options.platforms left this platform out.').count()).toBe(0);
    await shot('walk-1-live-activity-reasons');
  });

  it('labels dry runs, names time zones, and keeps each notification row short with its status in view at 390 px', async () => {
    await go(`/apps/${appId}`);
    const dryRow = page.getByRole('row', { name: /Trying the sale/ });
    await dryRow.getByText('dry run').waitFor();
    expect(
      await page
        .getByRole('row', { name: /Your delivery is on its way/ })
        .getByText('dry run')
        .count(),
    ).toBe(0);
    // "Nov 29, 2026, 3:05:00 PM GMT+1": the zone is named.
    await expect(dryRow.locator('time').first().textContent()).resolves.toMatch(/(AM|PM) (GMT[+-]\d+|CET|CEST)$/);
    await shot('walk-2-list-desktop');

    await page.setViewportSize(PHONE);
    await dryRow.getByText('dry run').waitFor();
    const box = (await dryRow.boundingBox())!;
    expect(box.height).toBeLessThan(110);
    const status = (await dryRow.locator('.cell-status .badge').boundingBox())!;
    expect(status.x + status.width).toBeLessThanOrEqual(PHONE.width);
    const scroll = await page.evaluate(
      () => (globalThis as any).document.documentElement.scrollWidth - (globalThis as any).document.documentElement.clientWidth,
    );
    expect(scroll).toBeLessThanOrEqual(0);
    await shot('walk-3-list-phone');

    await go(`/apps/${appId}/settings`);
    await page.getByRole('heading', { name: 'Settings of Garden Shop', level: 1 }).waitFor();
    await shot('apps-3-settings-phone');
    await go(`/apps/${appId}/analytics`);
    await page.getByRole('table', { name: 'Numbers of sends' }).waitFor();
    await shot('analytics-2-phone');
    const scrollAnalytics = await page.evaluate(
      () => (globalThis as any).document.documentElement.scrollWidth - (globalThis as any).document.documentElement.clientWidth,
    );
    expect(scrollAnalytics).toBeLessThanOrEqual(0);

    expect(foreignRequests).toEqual([]);
    expect(consoleErrors).toEqual([]);
    expect((await Promise.all(answerProblems)).filter(Boolean)).toEqual([]);
  });
});
