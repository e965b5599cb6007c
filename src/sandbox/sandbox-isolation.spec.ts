import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** What in Node or in the packages the sandbox uses can open a connection. */
const OUTBOUND = [
  /\bfetch\s*\(/,
  /\bimport\s*\{[^}]*\b(request|get|connect|createConnection)\b[^}]*\}\s*from\s*'node:(http|https|http2|net|tls)'/,
  /\b(http|https|http2|net|tls)\.(request|get|connect|createConnection)\s*\(/,
  /from\s*'(undici|gaxios|google-auth-library|web-push|ioredis|pg)'/,
];

/**
 * The sandbox never delivers anywhere (docs/testing.md#what-it-refuses): its code only answers
 * requests, so nothing sent to it can reach a device or a real provider.
 */
describe('the sandbox opens no connection', () => {
  const files = readdirSync(__dirname).filter((name) => name.endsWith('.ts') && !name.endsWith('.spec.ts') && !name.endsWith('.d.ts'));

  it.each(files)('%s only serves', (name) => {
    const text = readFileSync(join(__dirname, name), 'utf8');
    expect(OUTBOUND.filter((pattern) => pattern.test(text)).map(String)).toEqual([]);
  });

  it('would notice a client', () => {
    const client = `import { connect } from 'node:http2';\nawait fetch(url);`;
    expect(OUTBOUND.filter((pattern) => pattern.test(client))).toHaveLength(2);
  });
});
