import { existsSync, mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { ApiModule } from '../../src/app.module';
import { launchChromium } from '../support/chromium';
import { useTestApp } from '../support/create-test-app';
import { DASHBOARD_ADMIN, DASHBOARD_SCREENSHOTS, logInToDashboard } from '../support/dashboard';
import { watchDashboardPage } from '../support/dashboard-watch';
import { newApp } from '../support/factories';
import { freePort, killAllServices, ROOT, serviceEnv, ServiceProcess } from '../support/processes';

/**
 * Issue 54 items 1 and 5: the dashboard's Operators, My sessions and Audit log pages in Debian's
 * Chromium against the built service, at desktop and phone widths: the owner invites an
 * operator, who opens the one-time link, sets a password and logs in as an editor of one app, to
 * whom the owner's pages are not offered and whose server refuses them; the owner then reads it
 * all in the audit log. Screenshots go to test/artifacts/admin/ (ignored by git).
 */
jest.setTimeout(180_000);

const DESKTOP = { width: 1280, height: 900 };
const PHONE = { width: 390, height: 844 };

describe("operator dashboard's operators, sessions and audit log in Chromium (issue 54)", () => {
  afterAll(() => killAllServices());
  const ctx = useTestApp(() => ({ module: ApiModule }));

  let origin: string;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const foreignRequests: string[] = [];
  const consoleErrors: string[] = [];
  const answerProblems: Promise<string | null>[] = [];
  const shot = (target: Page, name: string) => target.screenshot({ path: resolve(DASHBOARD_SCREENSHOTS, `${name}.png`), fullPage: true });
  const overflow = (target: Page) =>
    target.evaluate(() => {
      const doc = (globalThis as any).document;
      const view = doc.documentElement.clientWidth as number;
      return {
        page: (doc.documentElement.scrollWidth as number) - view,
        outside: ([...doc.querySelectorAll('main *, header *')] as any[])
          .filter((el) => !el.closest('.table-scroll') && el.getBoundingClientRect().right > view + 1)
          .map((el) => `${el.tagName.toLowerCase()}.${el.className}`),
      };
    });

  beforeAll(async () => {
    if (!existsSync(resolve(ROOT, 'dist/admin/index.html'))) throw new Error('dist/admin is missing: run `npm run build` first');
    mkdirSync(DASHBOARD_SCREENSHOTS, { recursive: true });
    await newApp(ctx, 'Acme Shop');
    await newApp(ctx, 'Other app');
    const port = await freePort();
    origin = `http://127.0.0.1:${port}`;
    const service = ServiceProcess.start(
      serviceEnv(ctx, { APP_MODE: 'api', PORT: String(port), ADMIN_USER: DASHBOARD_ADMIN.user, ADMIN_PASSWORD: DASHBOARD_ADMIN.password }),
    );
    await service.waitForHttp(port);

    browser = await launchChromium();
    context = await browser.newContext({ locale: 'en-US', timezoneId: 'Europe/Paris', viewport: DESKTOP });
    page = await context.newPage();
    watchDashboardPage(page, origin, { foreignRequests, consoleErrors, answerProblems });
    await logInToDashboard(page, origin);
  });

  afterAll(async () => {
    await browser?.close();
  });

  let link: string;

  it('lets the owner invite an editor of one app and shows the one-time link once', async () => {
    await page.getByRole('link', { name: 'Operators', exact: true }).click();
    await page.getByRole('heading', { name: 'Operators', level: 1 }).waitFor();
    await page.getByLabel('E-mail').fill('ana@example.com');
    await page.getByLabel('Role', { exact: true }).selectOption('editor');
    await page.getByLabel('For', { exact: true }).selectOption({ label: 'Acme Shop' });
    await page.getByRole('button', { name: 'Invite' }).click();
    const code = page.locator('code', { hasText: '/admin/invitation#' });
    await code.waitFor();
    link = (await code.textContent())!;
    expect(link.startsWith(`${origin}/admin/invitation#`)).toBe(true);
    const row = page.getByRole('region', { name: 'Operators' }).locator('tr', { hasText: 'ana@example.com' });
    expect(await row.getByRole('combobox').inputValue()).toBe('editor');
    expect(await row.textContent()).toContain('Acme Shop');
    await shot(page, 'operators-desktop');
  });

  it('lets the invited operator set a password and log in, offering her neither the operators nor the audit log', async () => {
    const hers = await browser.newContext({ locale: 'en-US', viewport: PHONE });
    const phone = await hers.newPage();
    // Her answers are not read: a page that navigated away never hands over a body (an unhandled rejection).
    phone.on('request', (request) => {
      if (!request.url().startsWith(`${origin}/`)) foreignRequests.push(request.url());
    });
    phone.on('pageerror', (error) => consoleErrors.push(`page error: ${error.message}`));
    await phone.goto(link);
    await phone.getByLabel('New password').fill('ana has a long password');
    await phone.getByRole('button', { name: 'Set my password' }).click();
    await phone.getByText('Your password is set').waitFor();
    expect(phone.url()).toBe(`${origin}/admin/invitation`);
    await phone.getByRole('link', { name: 'Log in' }).click();
    await phone.getByLabel('User name').fill('ana@example.com');
    await phone.getByLabel('Password').fill('ana has a long password');
    await phone.getByRole('button', { name: 'Log in' }).click();
    await phone.getByRole('link', { name: 'ana@example.com' }).waitFor();
    expect(await phone.getByRole('link', { name: 'Operators', exact: true }).count()).toBe(0);
    expect(await phone.getByRole('link', { name: 'Audit log', exact: true }).count()).toBe(0);
    // The server, not the hidden link, decides.
    const refused = await phone.evaluate(() => fetch('/admin/api/operators').then((r) => r.status));
    expect(refused).toBe(403);
    await phone.getByRole('link', { name: 'Apps', exact: true }).click();
    await phone.getByText('Acme Shop').first().waitFor();
    expect(await phone.getByText('Other app').count()).toBe(0);

    await phone.getByRole('link', { name: 'ana@example.com' }).click();
    await phone.getByRole('heading', { name: 'My sessions', level: 1 }).waitFor();
    await phone.getByText('this one').waitFor();
    await shot(phone, 'sessions-phone');
    expect(await overflow(phone)).toEqual({ page: 0, outside: [] });
  });

  it('shows the owner the audit log, filtered by action, and the operators page at 390 px', async () => {
    await page.getByRole('link', { name: 'Audit log', exact: true }).click();
    await page.getByRole('heading', { name: 'Audit log', level: 1 }).waitFor();
    const entries = page.getByRole('region', { name: 'Audit log entries' });
    await entries.getByText('operator.accept').waitFor();
    await page.getByLabel('Action').selectOption('operator.create');
    await page.getByRole('button', { name: 'Filter' }).click();
    await entries.locator('tbody tr', { hasText: 'operator.accept' }).waitFor({ state: 'detached' });
    expect(await entries.locator('tbody tr').count()).toBe(1);
    expect(await entries.locator('tbody tr').textContent()).toContain('ana@example.com');
    await shot(page, 'audit-log-desktop');

    await page.setViewportSize(PHONE);
    await page.getByRole('link', { name: 'Operators', exact: true }).click();
    await page.getByRole('heading', { name: 'Operators', level: 1 }).waitFor();
    await shot(page, 'operators-phone');
    expect(await overflow(page)).toEqual({ page: 0, outside: [] });
    await page.getByRole('link', { name: 'Audit log', exact: true }).click();
    await page.getByRole('region', { name: 'Audit log entries' }).waitFor();
    await shot(page, 'audit-log-phone');
    expect(await overflow(page)).toEqual({ page: 0, outside: [] });
    await page.setViewportSize(DESKTOP);
  });

  it('loaded nothing from another host, logged no error, and every answer was as documented', async () => {
    expect(foreignRequests).toEqual([]);
    expect(consoleErrors.filter((e) => !e.includes('403'))).toEqual([]);
    expect((await Promise.all(answerProblems)).filter(Boolean)).toEqual([]);
  });
});
