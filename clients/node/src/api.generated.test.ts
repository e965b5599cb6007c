import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * index.ts types every method with api.generated.ts, which `npm run generate` (run by the root's
 * `npm run openapi:node`) makes of openapi.json. The generator runs here as there, so a document
 * changed without regenerating fails. That openapi.json matches the server's code is checked on
 * the server's side (src/common/http/public-openapi.spec.ts).
 */
describe('api.generated.ts', () => {
  // The generator takes a few seconds to start and print, more on a busy machine: past vitest's 5 s.
  it('is what openapi-typescript makes of openapi.json (else: npm run openapi:node)', () => {
    const pkg = createRequire(import.meta.url).resolve('openapi-typescript/package.json');
    const cli = join(dirname(pkg), (JSON.parse(readFileSync(pkg, 'utf8')) as { bin: Record<string, string> }).bin['openapi-typescript']);
    // Without --output the generator writes the file's text to stdout (its progress goes to stderr).
    const generated = execFileSync(process.execPath, [cli, 'openapi.json'], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    expect(generated.length).toBeGreaterThan(1000);
    expect(generated).toBe(readFileSync(join(root, 'src/api.generated.ts'), 'utf8'));
  }, 60_000);
});
