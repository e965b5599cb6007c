import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { useTestApp } from '../support/create-test-app';

const ROOT = resolve(__dirname, '../..');
const DOC = readFileSync(resolve(ROOT, 'docs/api.md'), 'utf8');
const METHODS = ['get', 'put', 'post', 'patch', 'delete', 'head', 'options'];

type Operation = { 'x-required-abilities'?: string[] };

/** The body of one `## ` section of a Markdown text. */
function section(text: string, title: string): string {
  const start = text.indexOf(`\n## ${title}\n`);
  if (start < 0) throw new Error(`no "## ${title}" section`);
  const end = text.indexOf('\n## ', start + 1);
  return text.slice(start, end < 0 ? undefined : end);
}

/** Rows of the route index: "METHOD /path" -> the abilities cell ("none" for a public route, "any" for any token). */
function routeIndex(): Map<string, string> {
  const rows = new Map<string, string>();
  for (const line of section(DOC, 'Route index').split('\n')) {
    const match = /^\| `([A-Z]+ \/[^`]*)` \| ([^|]+) \|/.exec(line);
    if (!match) continue;
    if (rows.has(match[1])) throw new Error(`${match[1]} is listed twice`);
    rows.set(match[1], match[2].trim());
  }
  return rows;
}

/**
 * Issue #12.7: docs/api.md is the project's own API reference. Its route index is the app's
 * routes (read from the OpenAPI document, which openapi.int-spec.ts keeps equal to the router),
 * and its sections keep the specification's numbering. Citations of it are checked by
 * src/docs-links.spec.ts: by anchor, and an anchor that exists.
 */
describe('docs/api.md (issue #12.7)', () => {
  const ctx = useTestApp();
  let paths: Record<string, Record<string, Operation>>;

  beforeAll(async () => {
    paths = (await ctx.http().get('/docs-json').expect(200)).body.paths;
  });

  it('lists exactly the routes the app serves, each with the ability the app requires', () => {
    const served = new Map<string, string>();
    for (const [path, item] of Object.entries(paths)) {
      for (const [method, op] of Object.entries(item)) {
        if (!METHODS.includes(method)) continue;
        const abilities = op['x-required-abilities'];
        // No list: a public route; an empty one: any valid token.
        served.set(`${method.toUpperCase()} ${path}`, !abilities ? 'none' : abilities.length ? abilities.map((a) => `\`${a}\``).join(', ') : 'any');
      }
    }
    const documented = routeIndex();
    expect([...documented.keys()].sort()).toEqual([...served.keys()].sort());
    for (const [route, abilities] of served) expect({ route, abilities: documented.get(route) }).toEqual({ route, abilities });
  });

  it('numbers sections 1 to 16 as the specification does, so a section number means the same subject', () => {
    const headings = [
      '## 1. Conventions',
      '## 2. Errors',
      '## 3. Applications, tokens and abilities',
      '## 4. Installations',
      '### 4.1 Resource',
      '### 4.2 Register or refresh',
      '### 4.3 Update',
      '### 4.4 Read and delete',
      '## 5. Notifications',
      '### 5.1 Send',
      '### 5.2 Notification resource and statistics',
      '### 5.3 Retries',
      '### 5.4 Read',
      '## 6. Delivery',
      '### 6.1 What a device receives',
      '## 7. Processes and configuration',
      '## 8. Operator CLI',
      '## 9. Environment variables',
      '## 10. Recipients and installation tags',
      '## 11. Scheduling, local time and cancelling',
      '## 12. Localized content',
      '## 13. Delivery trace',
      '## 14. Webhooks',
      '### 14.1 Managing webhooks',
      '### 14.2 Events',
      '### 14.3 The call',
      '### 14.4 Retries and guarantees',
      '## 15. Data lifecycle',
      '## 16. Message kinds and platform fields',
      '### 16.1 Silent sends',
      '### 16.2 Platform fields',
      '### 16.3 Web action buttons',
      '### 16.4 Badge arithmetic',
      '## 17. Live Activities (iOS)',
      '### 17.1 Push-to-start tokens',
      '### 17.2 The activity',
      '### 17.3 Updates and ends',
      '### 17.4 Starting activities by a send',
      '### 17.5 Broadcast channels',
      '## 18. Audiences: installation properties and filters',
      '### 18.1 Properties',
      '### 18.2 Filters',
      '### 18.3 Count an audience',
      '## 19. Pacing',
      '## 21. Trying it without devices',
      '### 21.1 Dry runs',
      '### 21.2 Credential checks',
      '## 23. Fair sharing between apps and between sends',
      '## 24. Topics and preferences',
      '### 24.1 Topics',
      '### 24.2 Preferences',
      '### 24.3 Sends',
      '### 24.4 User access',
      '## 25. The inbox',
      '### 25.1 Sending to the inbox',
      '### 25.2 The InboxMessage resource',
      '### 25.3 Reading and marking',
      '### 25.4 The stream',
      '## 26. Templates, personalization and A/B tests',
      '### 26.1 Templates',
      '### 26.2 Liquid',
      '### 26.3 Sending with a template',
      '### 26.4 Preview',
      '### 26.5 Variants',
      '### 26.6 A/B test with a winner',
      '## 27. The console for a team',
      '### 27.1 Operators',
      '### 27.2 OIDC sign-in',
      '### 27.3 Roles',
      '### 27.4 Apps and credentials in the dashboard',
      '### 27.5 Audit log',
      '### 27.6 Analytics',
      '## 29. Moving in',
      '### 29.1 `pns import',
      '### 29.2 `pns export',
      '### 29.3 The web SDK served',
      '### 29.4 The server SDK',
      '### 29.5 The React Native SDK',
    ];
    const lines = DOC.split('\n').filter((line) => /^#{2,3} \d/.test(line));
    expect(lines.length).toBe(headings.length);
    headings.forEach((heading, i) => expect(lines[i].startsWith(heading)).toBe(true));
  });

  it("is linked from the README's API section", () => {
    expect(section(readFileSync(resolve(ROOT, 'README.md'), 'utf8'), 'API')).toContain('(docs/api.md)');
  });
});
