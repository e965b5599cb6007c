import { resolve } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from '../support/chromium';
import { newApp, type TestTenant } from '../support/factories';
import { DASHBOARD_SCREENSHOTS, logInToDashboard, pageOverflow, startDashboardService } from '../support/dashboard';
import { watchDashboardPage } from '../support/dashboard-watch';
import { configureProviders, seedInstallations } from '../support/providers';
import { useApiWithFakeProviders } from '../support/use-api-with-fake-providers';

/**
 * Issue 53 item 6: the dashboard's composer in Debian's Chromium against the built service
 * (APP_MODE=all), at 1280 and 390 px: an audience filter built with controls (no JSON), its live
 * count, content with image, data and platform fields, the preview, the API's 422 next to its field
 * in the form's words, the confirmation of a send to more than 1,000 installations, and the sent
 * notification delivered. Screenshots go to test/artifacts/admin/ (ignored by git).
 */
jest.setTimeout(240_000);

const DESKTOP = { width: 1280, height: 900 };
const PHONE = { width: 390, height: 844 };
/** iOS installations seeded straight into the database: more than the 1,000 that need a confirmation. */
const IOS = 1_100;
const ANDROID = 40;

describe("operator dashboard's composer in Chromium (issue 53 item 6)", () => {
  const stack = useApiWithFakeProviders();
  const { ctx } = stack;

  let shop: TestTenant;
  let origin: string;
  let browser: Browser;
  let page: Page;
  const foreignRequests: string[] = [];
  const consoleErrors: string[] = [];
  const answerProblems: Promise<string | null>[] = [];

  const shot = (name: string) => page.screenshot({ path: resolve(DASHBOARD_SCREENSHOTS, `${name}.png`), fullPage: true });
  const overflow = () => pageOverflow(page);
  const count = () => page.getByRole('status', { name: 'Audience count' });
  const openComposer = async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Compose' }).click();
    await page.getByRole('heading', { name: 'Compose for Acme Shop', level: 1 }).waitFor();
  };
  /** iOS installations seen within the last 7 days, with controls only. */
  const buildAudience = async () => {
    await count()
      .filter({ hasText: `${(IOS + ANDROID).toLocaleString('en-US')} installations` })
      .waitFor();
    await page.getByRole('button', { name: 'Add condition' }).click();
    await page.getByLabel('Field 1').selectOption({ label: 'platform' });
    await page.getByLabel('Comparison 1').selectOption({ label: 'is one of' });
    await page.getByRole('group', { name: 'Value 1' }).getByLabel('iOS').check();
    await page.getByRole('button', { name: 'Add condition' }).click();
    await page.getByLabel('Field 2').selectOption({ label: 'last seen' });
    await page.getByLabel('Comparison 2').selectOption({ label: 'within the last' });
    await page.getByLabel('Value 2').fill('7');
    await page.getByLabel('Unit 2').selectOption({ label: 'days' });
    await count()
      .filter({ hasText: /^1,100 installations · 1,100 can receive it · 1,100 users/ })
      .waitFor();
  };

  beforeAll(async () => {
    shop = await newApp(ctx, 'Acme Shop');
    await configureProviders(ctx, shop.appId, stack.fakes);
    await seedInstallations(ctx, shop.appId, stack.fakes, IOS, 'ios-user', 'ios');
    await seedInstallations(ctx, shop.appId, stack.fakes, ANDROID, 'android-user', 'android');

    origin = await startDashboardService(ctx, { ...stack.fakes.env });

    browser = await launchChromium();
    const context = await browser.newContext({ locale: 'en-US', timezoneId: 'Europe/Paris', viewport: DESKTOP });
    page = await context.newPage();
    watchDashboardPage(page, origin, { foreignRequests, consoleErrors, answerProblems });
    await logInToDashboard(page, origin);
    await page.getByRole('link', { name: 'Apps', exact: true }).click();
    await page.getByRole('link', { name: 'Acme Shop' }).click();
  });

  afterAll(async () => {
    await browser?.close();
  });

  it('builds a filter audience with controls and counts it, composes and previews', async () => {
    await openComposer();
    await buildAudience();
    expect(await page.getByLabel(/^Filter \(JSON/).count()).toBe(0);
    await page.getByLabel('Title', { exact: true }).fill('Spring sale');
    await page.getByLabel('Message', { exact: true }).fill('Everything half price until Sunday');
    await page.getByLabel('Image URL (optional)').fill('http://cdn.example.com/sale.png');
    await page.getByLabel('Link to open (optional)').fill('https://shop.example.com/sale');
    await page.getByLabel('Data for the app (JSON, optional)').fill('{"campaign": "spring"}');
    await page.locator('summary', { hasText: 'iOS' }).click();
    await page.getByLabel('Subtitle', { exact: true }).fill('Today only');
    await page.getByLabel('Interruption level').selectOption('time-sensitive');
    const preview = page.getByRole('complementary', { name: 'Preview' });
    const ios = preview.getByRole('figure', { name: 'On iOS' });
    await ios.getByText('Spring sale').waitFor();
    await ios.getByText('Today only').waitFor();
    await preview.getByRole('figure', { name: 'On Android' }).getByText('Everything half price until Sunday').waitFor();
    await shot('composer-1-audience-1280');
  });

  it('asks to confirm the audience size above 1,000, then shows the refusal next to the field in plain words', async () => {
    await page.getByRole('button', { name: 'Send' }).click();
    const dialog = page.getByRole('alertdialog', { name: 'Send to 1,100 installations?' });
    await dialog.waitFor();
    await dialog.getByText('This reaches 1,100 installations of 1,100 users').waitFor();
    await shot('composer-2-confirm-1280');
    await dialog.getByRole('button', { name: 'Go back' }).click();
    await dialog.waitFor({ state: 'detached' });
    // Confirmed, the API refuses the http:// image: said at the field, not as notification.image_url.
    await page.getByRole('button', { name: 'Send' }).click();
    await dialog.getByRole('button', { name: 'Send to 1,100 installations' }).click();
    const error = page.locator('#compose-image_url-error');
    await error.waitFor();
    await expect(error.textContent()).resolves.toBe('The image URL must be an absolute https:// URL.');
    await expect(page.getByLabel('Image URL (optional)').getAttribute('aria-invalid')).resolves.toBe('true');
    expect(await page.locator('main').textContent()).not.toContain('notification.image_url');
    await shot('composer-3-field-error-1280');
  });

  it('sends after the confirmation and the notification reaches the 1,100 installations', async () => {
    await page.getByLabel('Image URL (optional)').fill('https://cdn.example.com/sale.png');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.getByRole('alertdialog', { name: 'Send to 1,100 installations?' }).getByRole('button', { name: 'Send to 1,100 installations' }).click();
    await page.getByRole('heading', { name: 'Spring sale', level: 1 }).waitFor();
    await page.locator('.page-actions .badge', { hasText: 'completed' }).waitFor({ timeout: 180_000 });
    const accepted = page.locator('.figure', { has: page.locator('dt', { hasText: /^Accepted$/i }) }).locator('.figure-value');
    await expect(accepted.textContent()).resolves.toBe('1,100');
    await shot('composer-4-sent-1280');
    // What APNs got: the subtitle, the image and the data the composer set.
    const sample = stack.fakes.apns.requests.find((r) => r.status === 200 && (r.payload as any)?.aps?.alert?.title === 'Spring sale');
    expect(sample?.payload).toMatchObject({
      aps: { alert: { title: 'Spring sale', subtitle: 'Today only' }, 'interruption-level': 'time-sensitive' },
      image_url: 'https://cdn.example.com/sale.png',
      data: { campaign: 'spring' },
    });
  });

  it('fits a 390 px phone: the audience, the count, the fields and the confirmation', async () => {
    await page.setViewportSize(PHONE);
    await openComposer();
    await buildAudience();
    await page.getByLabel('Title', { exact: true }).fill('Phone test');
    await page.getByLabel('Message', { exact: true }).fill('Fits');
    await expect(overflow()).resolves.toEqual({ page: 0, outside: [] });
    await shot('composer-5-audience-390');
    await page.getByRole('button', { name: 'Send' }).click();
    const dialog = page.getByRole('alertdialog', { name: 'Send to 1,100 installations?' });
    await dialog.waitFor();
    await expect(overflow()).resolves.toEqual({ page: 0, outside: [] });
    await dialog.screenshot({ path: resolve(DASHBOARD_SCREENSHOTS, 'composer-6-confirm-390.png') });
    await dialog.getByRole('button', { name: 'Go back' }).click();
    await page.setViewportSize(DESKTOP);
  });

  it('made no request to another host, logged no error but the provoked 422, and every answer is as documented', async () => {
    expect(foreignRequests).toEqual([]);
    expect(consoleErrors.filter((e) => !/status of 422/.test(e))).toEqual([]);
    expect(answerProblems.length).toBeGreaterThan(5);
    expect((await Promise.all(answerProblems)).filter(Boolean)).toEqual([]);
  });
});
