import { existsSync, mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { ApiModule } from '../../src/app.module';
import { OperatorsService } from '../../src/operators/operators.service';
import { launchChromium } from '../support/chromium';
import { useTestApp } from '../support/create-test-app';
import { DASHBOARD_ADMIN, DASHBOARD_SCREENSHOTS, logInToDashboard } from '../support/dashboard';
import { newApp } from '../support/factories';
import { freePort, killAllServices, ROOT, serviceEnv, ServiceProcess } from '../support/processes';

/**
 * Issue 54 item 2 (docs/api.md#oidc): signing in to the dashboard through a real OpenID provider
 * (oidc-provider, test/support/oidc-provider.mjs) on loopback, in Debian's Chromium, through the
 * whole redirect flow: the login page's "Sign in with …", the provider's login and consent pages,
 * the code with PKCE exchanged by openid-client, the dashboard. A known operator lands on the
 * dashboard; an unknown e-mail of a domain not admitted is refused in words; an admitted
 * domain's new e-mail becomes an operator with the domain's role; a changed state is refused.
 * The provider is http://localhost:<port>, the service http://127.0.0.1:<port>: two sites, so the
 * redirects are cross-site as with a real provider. Screenshots in test/artifacts/admin/.
 */
jest.setTimeout(180_000);

const DESKTOP = { width: 1280, height: 900 };
const PHONE = { width: 390, height: 844 };
const CLIENT = { id: 'pns-dashboard', secret: 'a loopback client secret' };

describe('OIDC sign-in to the dashboard in Chromium (issue 54)', () => {
  afterAll(() => killAllServices());
  const ctx = useTestApp(() => ({ module: ApiModule }));

  let origin: string;
  let browser: Browser;
  const shot = (target: Page, name: string) => target.screenshot({ path: resolve(DASHBOARD_SCREENSHOTS, `${name}.png`), fullPage: true });
  const overflow = (target: Page) =>
    target.evaluate(() => (globalThis as any).document.documentElement.scrollWidth - (globalThis as any).document.documentElement.clientWidth);

  beforeAll(async () => {
    if (!existsSync(resolve(ROOT, 'dist/admin/index.html'))) throw new Error('dist/admin is missing: run `npm run build` first');
    mkdirSync(DASHBOARD_SCREENSHOTS, { recursive: true });
    await newApp(ctx, 'Acme Shop');
    const operators = ctx.get(OperatorsService);
    await operators.create('ana@example.com', [{ app_id: null, role: 'editor' }]);

    const [port, idpPort] = [await freePort(), await freePort()];
    origin = `http://127.0.0.1:${port}`;
    const idp = ServiceProcess.script(resolve(ROOT, 'test/support/oidc-provider.mjs'), {
      PORT: String(idpPort),
      CLIENT_ID: CLIENT.id,
      CLIENT_SECRET: CLIENT.secret,
      REDIRECT_URI: `${origin}/admin/api/oidc/callback`,
    });
    await idp.waitForOutput(/oidc provider listening/);
    const service = ServiceProcess.start(
      serviceEnv(ctx, {
        APP_MODE: 'api',
        PORT: String(port),
        ADMIN_USER: DASHBOARD_ADMIN.user,
        ADMIN_PASSWORD: DASHBOARD_ADMIN.password,
        PUBLIC_URL: origin,
        ADMIN_OIDC_ISSUER: `http://localhost:${idpPort}`,
        ADMIN_OIDC_CLIENT_ID: CLIENT.id,
        ADMIN_OIDC_CLIENT_SECRET: CLIENT.secret,
        ADMIN_OIDC_NAME: 'Loopback ID',
      }),
    );
    // The shared test machine can be slow to start a service.
    await service.waitForHttp(port, '/health/live', 60_000);
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
  });

  /** A fresh browser (no provider session) at the login page, "Sign in with" clicked, the provider's login form filled. */
  async function signInAtProvider(email: string, viewport = DESKTOP, name?: string): Promise<{ context: BrowserContext; page: Page }> {
    const context = await browser.newContext({ locale: 'en-US', timezoneId: 'Europe/Paris', viewport });
    const page = await context.newPage();
    await page.goto(`${origin}/admin`);
    const button = page.getByRole('link', { name: 'Sign in with Loopback ID' });
    await button.waitFor();
    if (name) await shot(page, `${name}-login`);
    await button.click();
    await page.waitForURL(/^http:\/\/localhost:\d+\//);
    await page.getByPlaceholder('Enter any login').fill(email);
    await page.getByPlaceholder('and password').fill('any password');
    await page.getByRole('button', { name: 'Sign-in' }).click();
    return { context, page };
  }

  const consent = (page: Page) => page.getByRole('button', { name: 'Continue' }).click();

  it('signs a known operator in through the provider and lands on the dashboard', async () => {
    const { context, page } = await signInAtProvider('ana@example.com', DESKTOP, 'oidc-desktop');
    await consent(page);
    await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
    expect(page.url()).toBe(`${origin}/admin`);
    await page.getByRole('link', { name: 'ana@example.com' }).waitFor();
    await shot(page, 'oidc-desktop-signed-in');
    // The session is the password login's: its cookie, CSRF token and role; the attempt's cookie is gone (both paths asked).
    const cookies = await context.cookies(`${origin}/admin/api/oidc/callback`);
    expect(cookies.map((c) => `${c.name} ${c.httpOnly} ${c.sameSite}`).sort()).toEqual(['pns_admin true Strict']);
    const session = await page.evaluate(() => fetch('/admin/api/session').then((r) => r.json() as Promise<any>));
    expect(session.data).toMatchObject({ user: 'ana@example.com', grants: [{ app_id: null, role: 'editor' }] });
    const sessions = await page.evaluate(() => fetch('/admin/api/sessions').then((r) => r.json() as Promise<any>));
    expect(sessions.data[0]).toMatchObject({ method: 'oidc', current: true });
    const [login] = await ctx.db.query(`SELECT actor, details FROM audit_log WHERE action = 'session.login' ORDER BY id DESC LIMIT 1`);
    expect(login).toEqual({ actor: 'ana@example.com', details: { method: 'oidc' } });
    await context.close();
  });

  it('refuses, in words, an unknown e-mail whose domain is not admitted (at 390 px)', async () => {
    const { context, page } = await signInAtProvider('bob@elsewhere.example', PHONE, 'oidc-phone');
    await consent(page);
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toBe(
      'No enabled operator has this e-mail and its domain is not admitted: ask an owner to invite you or to admit your domain.',
    );
    expect(page.url()).toBe(`${origin}/admin`);
    await page.getByRole('link', { name: 'Sign in with Loopback ID' }).waitFor();
    await shot(page, 'oidc-phone-refused');
    expect(await overflow(page)).toBe(0);
    expect(await ctx.get(OperatorsService).findByEmail('bob@elsewhere.example')).toBeNull();
    expect((await context.cookies(`${origin}/admin/api/oidc/callback`)).map((c) => c.name)).toEqual([]);
    await context.close();
  });

  it('lets the owner admit a domain on the Domains page (1280 and 390 px)', async () => {
    const context = await browser.newContext({ locale: 'en-US', timezoneId: 'Europe/Paris', viewport: DESKTOP });
    const page = await context.newPage();
    await logInToDashboard(page, origin);
    await page.getByRole('link', { name: 'Domains', exact: true }).click();
    await page.getByRole('heading', { name: 'Admitted domains', level: 1 }).waitFor();
    await page.getByText('No domain is admitted').waitFor();
    await page.getByLabel('Domain', { exact: true }).fill('team.example');
    await page.getByLabel('Role for every app').selectOption('viewer');
    await page.getByRole('button', { name: 'Admit' }).click();
    await page.getByText('team.example admitted: its new operators are viewers of every app.').waitFor();
    const row = page.getByRole('region', { name: 'Admitted domains table' }).locator('tr', { hasText: 'team.example' });
    expect(await row.getByRole('combobox').inputValue()).toBe('viewer');
    await shot(page, 'domains-desktop');
    await page.setViewportSize(PHONE);
    await shot(page, 'domains-phone');
    expect(await overflow(page)).toBe(0);
    await context.close();
  });

  it("makes an admitted domain's new e-mail an operator with the domain's role", async () => {
    const { context, page } = await signInAtProvider('carol@team.example', PHONE);
    await consent(page);
    await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
    await page.getByRole('link', { name: 'carol@team.example' }).waitFor();
    await shot(page, 'oidc-phone-signed-in');
    expect(await overflow(page)).toBe(0);
    const carol = await ctx.get(OperatorsService).findByEmail('carol@team.example');
    expect(carol).toMatchObject({ grants: [{ app_id: null, role: 'viewer' }], password_set: false, disabled_at: null });
    const [created] = await ctx.db.query(`SELECT actor, target, details FROM audit_log WHERE action = 'operator.create' AND target = $1`, [
      'carol@team.example',
    ]);
    expect(created).toEqual({
      actor: 'carol@team.example',
      target: 'carol@team.example',
      details: { via: 'oidc', grants: [{ app_id: null, role: 'viewer' }] },
    });
    // A viewer changes nothing: the server says so.
    expect(await page.evaluate(() => fetch('/admin/api/operators').then((r) => r.status))).toBe(403);
    await context.close();
  });

  it('refuses a callback whose state was changed, and opens no session', async () => {
    const context = await browser.newContext({ locale: 'en-US', timezoneId: 'Europe/Paris', viewport: DESKTOP });
    const page = await context.newPage();
    // The start, with the browser's cookies (the attempt's is kept); the provider is then sent another state.
    const started = await context.request.get(`${origin}/admin/api/oidc/start`, { maxRedirects: 0 });
    expect(started.status()).toBe(303);
    expect((await context.cookies(`${origin}/admin/api/oidc/callback`)).map((c) => `${c.name} ${c.httpOnly} ${c.sameSite}`)).toEqual(['pns_oidc true Lax']);
    const authorize = new URL(started.headers().location);
    expect(authorize.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorize.searchParams.get('nonce')).toBeTruthy();
    authorize.searchParams.set('state', 'not-the-state-we-sent');
    await page.goto(authorize.href);
    await page.getByPlaceholder('Enter any login').fill('ana@example.com');
    await page.getByPlaceholder('and password').fill('any password');
    await page.getByRole('button', { name: 'Sign-in' }).click();
    await consent(page);
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toBe('This sign-in was not started here or took longer than 10 minutes: try again.');
    expect((await context.cookies(`${origin}/admin/api/oidc/callback`)).map((c) => c.name)).toEqual([]);
    expect(await page.evaluate(() => fetch('/admin/api/session').then((r) => r.json()))).toEqual({ data: null });
    expect(page.url()).toBe(`${origin}/admin`);
    await shot(page, 'oidc-desktop-state-refused');
    await context.close();
  });
});
