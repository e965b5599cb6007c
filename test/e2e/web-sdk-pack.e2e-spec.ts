import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { ROOT } from '../support/processes';

jest.setTimeout(180_000);

const WEB = resolve(ROOT, 'clients/web');

/**
 * Issue 56 item 4: `npm pack` in clients/web always carries dist/, since its `prepack` builds what is
 * missing or stale (scripts/prepack.mjs). Packed here from a copy of clients/web without dist/ (beside
 * it in the repository, so the workspace's tools resolve), so the shared dist/ that other tests read
 * is left alone.
 */
describe('npm pack in clients/web', () => {
  let copy: string;
  afterAll(() => {
    if (copy) rmSync(copy, { recursive: true, force: true });
  });

  it('builds dist/ first when it is missing, and packs it', async () => {
    expect(JSON.parse(readFileSync(join(WEB, 'package.json'), 'utf8')).scripts.prepack).toBe('node scripts/prepack.mjs');
    copy = mkdtempSync(join(ROOT, '.pack-check-'));
    const web = join(copy, 'web');
    cpSync(WEB, web, { recursive: true, filter: (source) => !/[\\/](dist|node_modules)$/.test(source) });
    expect(existsSync(join(web, 'dist'))).toBe(false);

    const { stdout, stderr } = await promisify(execFile)('npm', ['pack', '--dry-run', '--json'], { cwd: web, encoding: 'utf8' });
    expect(stderr).toContain('prepack: building dist/ (missing dist/index.js');
    const [info] = JSON.parse(stdout) as { files: { path: string }[] }[];
    const files = info.files.map((file) => file.path);
    expect(files).toEqual(
      expect.arrayContaining(['dist/index.js', 'dist/index.d.ts', 'dist/worker.js', 'dist/worker.d.ts', 'dist/pns.iife.js', 'dist/worker.iife.js']),
    );
    // The same script-tag builds the api serves (docs/api.md#web-sdk).
    expect(readFileSync(join(web, 'dist/pns.iife.js'))).toEqual(readFileSync(join(WEB, 'dist/pns.iife.js')));
  });
});
