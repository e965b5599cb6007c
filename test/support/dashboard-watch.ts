import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Page } from 'playwright-core';
import { type OpenApiDocument, responseChecker } from './openapi-schemas';
import { ROOT } from './processes';

/** What a dashboard page did that a test then asserts on: requests off the origin, console errors, admin API answers off the document. */
export interface DashboardWatch {
  foreignRequests: string[];
  consoleErrors: string[];
  /** One per `/admin/api/` answer: null when it matches clients/admin/openapi.json, else what does not. */
  answerProblems: Promise<string | null>[];
}

/** Records into `seen` what `page` requests off `origin`, logs as errors, and answers from the admin API against its document. */
export function watchDashboardPage(page: Page, origin: string, seen: DashboardWatch): void {
  page.on('request', (request) => {
    const url = request.url();
    if (!url.startsWith(`${origin}/`) && !url.startsWith('data:')) seen.foreignRequests.push(url);
  });
  page.on('console', (message) => {
    if (message.type() === 'error') seen.consoleErrors.push(message.text());
  });
  page.on('pageerror', (error) => seen.consoleErrors.push(`page error: ${error.message}`));
  const document = JSON.parse(readFileSync(resolve(ROOT, 'clients/admin/openapi.json'), 'utf8')) as OpenApiDocument;
  const check = responseChecker(document);
  const templates = Object.keys(document.paths).map((path) => ({ path, pattern: new RegExp(`^${path.replace(/\{[^}]+\}/g, '[^/]+')}$`) }));
  page.on('response', (response) => {
    const { pathname } = new URL(response.url());
    if (!pathname.startsWith('/admin/api/')) return;
    // The one download (a trace's CSV, docs/api.md#analytics) is checked by its own test, not as JSON.
    if (response.headers()['content-type']?.startsWith('text/csv')) return;
    const method = response.request().method().toLowerCase();
    // The template with this method: `/credentials/check` (POST) is not `/credentials/{provider}` (DELETE).
    const path =
      templates.find((template) => template.pattern.test(pathname) && (document.paths as Record<string, Record<string, unknown>>)[template.path][method])
        ?.path ?? pathname;
    // A 204 has no body for Chromium to hand over.
    const text = response.status() === 204 ? Promise.resolve('') : response.text();
    seen.answerProblems.push(
      text.then((text) => {
        const problem = check(path, method, response.status(), text ? JSON.parse(text) : undefined, text);
        return problem && `${method.toUpperCase()} ${pathname}: ${problem}`;
      }),
    );
  });
}
