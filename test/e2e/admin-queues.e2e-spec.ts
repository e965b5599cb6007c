import { mkdirSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import type { Browser } from 'playwright-core';
import { useTestApp } from '../support/create-test-app';
import { launchChromium } from '../support/chromium';
import { ROOT } from '../support/processes';

/**
 * Issue 57 item 2: the queue dashboard at /admin/queues, the overview's link, loads in Chromium.
 * bull-board's page resolves its scripts against its `<base href>`, which the dashboard's own CSP
 * (`base-uri 'none'`) would drop. Its screenshot goes to test/artifacts/admin/queues.png.
 */
jest.setTimeout(60_000);

const ADMIN = { user: 'ops', password: 'a-long-dashboard-password' };

describe('queue dashboard in Chromium (issue 57 item 2)', () => {
  const ctx = useTestApp({ env: { ADMIN_USER: ADMIN.user, ADMIN_PASSWORD: ADMIN.password } });
  let origin: string;
  let browser: Browser;

  beforeAll(async () => {
    const server = ctx.app.getHttpServer();
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    browser = await launchChromium();
  });
  afterAll(() => browser?.close());

  it('shows the queues by name, loading every script from this origin, with no error', async () => {
    const login = await fetch(`${origin}/admin/api/session`, {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from(`${ADMIN.user}:${ADMIN.password}`).toString('base64')}` },
    });
    expect(login.status).toBe(200);
    const session = /pns_admin=([^;]+)/.exec(login.headers.get('set-cookie') ?? '')![1];

    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    await context.addCookies([{ name: 'pns_admin', value: session, url: `${origin}/admin` }]);
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    const scripts: { url: string; status: number; type: string }[] = [];
    page.on('response', (response) => {
      if (response.request().resourceType() === 'script')
        scripts.push({ url: response.url(), status: response.status(), type: response.headers()['content-type'] ?? '' });
    });

    const answer = await page.goto(`${origin}/admin/queues`);
    expect(answer?.status()).toBe(200);
    try {
      for (const name of ['fanout', 'deliver', 'deliver-small', 'webhook']) {
        await page.getByText(name, { exact: true }).first().waitFor({ timeout: 15_000 });
      }
    } finally {
      mkdirSync(resolve(ROOT, 'test/artifacts/admin'), { recursive: true });
      await page.screenshot({ path: resolve(ROOT, 'test/artifacts/admin/queues.png'), fullPage: true });
    }
    expect(scripts.length).toBeGreaterThan(1);
    for (const script of scripts) {
      expect(script).toEqual({ url: expect.stringMatching(new RegExp(`^${origin}/admin/queues/`)), status: 200, type: expect.stringMatching(/javascript/) });
    }
    expect(problems).toEqual([]);
    await context.close();
  });
});
