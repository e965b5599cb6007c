import { existsSync, mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Page } from 'playwright-core';
import { ChildEnv, freePort, ROOT, serviceEnv, ServiceProcess } from './processes';

/** Where the dashboard's browser tests save their screenshots (test/artifacts/ is ignored by git). */
export const DASHBOARD_SCREENSHOTS = resolve(ROOT, 'test/artifacts/admin');
/** The bootstrap owner (ADMIN_USER, ADMIN_PASSWORD) those tests log in as. */
export const DASHBOARD_ADMIN = { user: 'ops', password: 'correct horse battery staple' };

/**
 * The built service (dist/, with the dashboard in dist/admin) in APP_MODE=all on a free port, the dashboard on for
 * DASHBOARD_ADMIN, with `env` (the fakes' URLs, settings a test needs) beside: its origin.
 */
export async function startDashboardService(stores: { databaseUrl: string; queuePrefix: string }, env: ChildEnv = {}): Promise<string> {
  if (!existsSync(resolve(ROOT, 'dist/admin/index.html'))) throw new Error('dist/admin is missing: run `npm run build` first');
  mkdirSync(DASHBOARD_SCREENSHOTS, { recursive: true });
  const port = await freePort();
  const service = ServiceProcess.start(
    serviceEnv(stores, {
      ...env,
      APP_MODE: 'all',
      PORT: String(port),
      ADMIN_USER: DASHBOARD_ADMIN.user,
      ADMIN_PASSWORD: DASHBOARD_ADMIN.password,
      NODE_EXTRA_CA_CERTS: process.env.NODE_EXTRA_CA_CERTS ?? `${ROOT}/test/fakes/certs/ca.pem`,
    }),
  );
  await service.waitForHttp(port);
  return `http://127.0.0.1:${port}`;
}

/** Logs in with the form as DASHBOARD_ADMIN; the overview opens. */
export async function logInToDashboard(page: Page, origin: string): Promise<void> {
  await page.goto(`${origin}/admin`);
  await page.getByLabel('User name').fill(DASHBOARD_ADMIN.user);
  await page.getByLabel('Password').fill(DASHBOARD_ADMIN.password);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
}

/**
 * How far the page scrolls sideways, and what sticks out past the right edge of `main` and the
 * header, outside a table's scrolling box and a closed `details`: both are zero on a page that fits.
 */
/**
 * After a resize without a reload: until every chart's canvas has followed the new width (Chart.js
 * resizes them from a ResizeObserver on a later frame, which a loaded machine delays). A canvas
 * that never fits fails the wait.
 */
export async function chartsResized(page: Page): Promise<void> {
  await page.waitForFunction(
    () => {
      const doc = (globalThis as any).document;
      const view = doc.documentElement.clientWidth as number;
      return ([...doc.querySelectorAll('main canvas')] as any[]).every((canvas) => canvas.getBoundingClientRect().right <= view + 1);
    },
    undefined,
    { timeout: 15_000 },
  );
}

export function pageOverflow(page: Page): Promise<{ page: number; outside: string[] }> {
  return page.evaluate(() => {
    const doc = (globalThis as any).document;
    const view = doc.documentElement.clientWidth as number;
    return {
      page: (doc.documentElement.scrollWidth as number) - view,
      outside: ([...doc.querySelectorAll('main *, header *')] as any[])
        .filter((el) => !el.closest('.table-scroll') && !el.closest('details:not([open])') && el.getBoundingClientRect().right > view + 1)
        .map((el) => `${el.tagName.toLowerCase()}.${el.className}`),
    };
  });
}
