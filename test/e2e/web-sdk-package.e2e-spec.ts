import { execFileSync } from 'node:child_process';
import { createReadStream, existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { extname, join, resolve } from 'node:path';
import type { Browser } from 'playwright-core';
import { launchChromium } from '../support/chromium';
import { freePort, ROOT } from '../support/processes';

/**
 * Issue 31 items 15 and 16: clients/web is a package a shop can install. `npm pack` makes the
 * tarball a registry would serve; a fresh project outside this repository installs it from that
 * file (offline: the package has no dependencies), type-checks a page and a service worker against
 * its types and `exports`, type-checks the README's React example against it, and builds the page
 * with Vite. Chromium then runs the built page, and a page that loads the script-tag build
 * (`dist/pns.iife.js`, a global `Pns`) with a plain `<script>`.
 */
jest.setTimeout(180_000);

const WEB = resolve(ROOT, 'clients/web');
const NAME = 'pns-web-sdk';
/** Runs a command; on failure, throws with what it printed. */
const run = (command: string, args: string[], cwd: string): string => {
  try {
    return execFileSync(command, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    throw new Error(`${command} ${args.join(' ')} failed in ${cwd}:\n${stdout ?? ''}${stderr ?? ''}`, { cause: error });
  }
};
/** A tool of this repository, run by this Node, in the fresh project. */
const tool = (path: string, args: string[], cwd: string) => run(process.execPath, [resolve(ROOT, 'node_modules', path), ...args], cwd);

const MAIN_TS = `import { PushApiError, PushClient, type PushClientOptions } from '${NAME}';

const options: PushClientOptions = {
  baseUrl: 'https://push.example.com',
  token: 'pns_client',
  vapidPublicKey: 'BNcRdreALRFXTkOOUHK1EtK2wtaz5Ry4YfYCA_0QTpQtUbVlUls0VJXg7A8u-Ts1XbjhazAkj7I99e8QcYP7DkM',
  serviceWorkerUrl: '/sw.js',
};
document.body.dataset.result = JSON.stringify({
  supported: PushClient.isSupported(),
  init: typeof PushClient.init,
  error: new PushApiError(422, 'The user_id_hash does not match user_id.', null).status,
  worker: options.serviceWorkerUrl,
});
`;

const SW_TS = `/// <reference lib="webworker" />
import { setupPushWorker } from '${NAME}/worker';

const worker = setupPushWorker({ icon: '/icon-192.png' });
void worker.flushReports;
`;

const SCRIPT_TAG_HTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>No bundler</title></head>
<body>
  <script src="/pns.iife.js"></script>
  <script>
    document.body.dataset.result = JSON.stringify({ supported: Pns.PushClient.isSupported(), init: typeof Pns.PushClient.init, error: typeof Pns.PushApiError });
  </script>
</body></html>
`;

describe('the web SDK as an npm package (issue 31 items 15 and 16)', () => {
  let work: string;
  let project: string;
  let tarball: string;
  let packed: string[];
  let server: Server | undefined;
  let browser: Browser | undefined;

  beforeAll(() => {
    if (!existsSync(resolve(WEB, 'dist/pns.iife.js'))) throw new Error('clients/web/dist is missing: run `npm run build` first');
    work = mkdtempSync(join(tmpdir(), 'pns-web-sdk-'));
    const [info] = JSON.parse(run('npm', ['pack', '--json', '--pack-destination', work], WEB)) as { filename: string; files: { path: string }[] }[];
    tarball = join(work, info.filename);
    packed = info.files.map((file) => file.path).sort();
  });
  afterAll(async () => {
    await browser?.close();
    await new Promise((done) => (server ? server.close(done) : done(undefined)));
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('is publishable: a name, a version, entry points and types, and only what a shop needs in the tarball', () => {
    const manifest = JSON.parse(readFileSync(resolve(WEB, 'package.json'), 'utf8')) as Record<string, any>;
    expect(manifest.private).toBeUndefined();
    expect(manifest).toMatchObject({ name: NAME, version: expect.stringMatching(/^\d+\.\d+\.\d+$/), license: 'MIT', types: './dist/index.d.ts' });
    expect(manifest.dependencies).toBeUndefined();
    expect(Object.keys(manifest.exports)).toEqual(['.', './worker', './worker.iife.js', './pns.iife.js', './package.json']);
    for (const target of Object.values<string | Record<string, string>>(manifest.exports).flatMap((entry) =>
      typeof entry === 'string' ? [entry] : Object.values(entry),
    ))
      expect({ target, packed: packed.includes(target.replace(/^\.\//, '')) }).toEqual({ target, packed: true });
    expect(packed).toEqual(expect.arrayContaining(['LICENSE', 'README.md', 'package.json', 'dist/shared/api.d.ts']));
    // No sources, tests, fakes, examples or build scripts.
    expect(packed.filter((path) => !/^(dist\/|LICENSE$|README\.md$|package\.json$)/.test(path) || /\.test\.|testing/.test(path))).toEqual([]);
    // The script-tag build is one file: no chunk imported, no hash in its name.
    const iife = readFileSync(resolve(WEB, 'dist/pns.iife.js'), 'utf8');
    expect(iife).not.toMatch(/\bimport\s*[({'"]|\bfrom\s*['"]/);
    expect(iife).toMatch(/^var Pns\s*=/);
  });

  it('installs from the packed file into a fresh project, type-checks a page, a worker and the React example, and builds the page', () => {
    project = join(work, 'shop');
    mkdirSync(join(project, 'src'), { recursive: true });
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'shop', version: '1.0.0', private: true, type: 'module' }));
    run('npm', ['install', '--offline', '--no-audit', '--no-fund', '--ignore-scripts', tarball], project);
    // A real copy from the tarball, not a link to this repository's folder.
    expect(lstatSync(join(project, 'node_modules', NAME)).isSymbolicLink()).toBe(false);
    expect(JSON.parse(readFileSync(join(project, 'package.json'), 'utf8')).dependencies[NAME]).toMatch(/^file:/);

    writeFileSync(join(project, 'src/main.ts'), MAIN_TS);
    writeFileSync(join(project, 'src/sw.ts'), SW_TS);
    writeFileSync(join(project, 'src/PushButton.tsx'), readFileSync(resolve(WEB, 'examples/react/PushButton.tsx')));
    // React is the shop's own dependency: linked from this repository, which has it for the dashboard.
    for (const name of ['react', '@types/react']) {
      mkdirSync(join(project, 'node_modules', name, '..'), { recursive: true });
      symlinkSync(resolve(ROOT, 'node_modules', name), join(project, 'node_modules', name));
    }
    writeFileSync(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'es2022',
          module: 'esnext',
          moduleResolution: 'bundler',
          lib: ['es2022', 'dom', 'dom.iterable'],
          jsx: 'react-jsx',
          strict: true,
          noEmit: true,
          types: [],
        },
        include: ['src/main.ts', 'src/PushButton.tsx'],
      }),
    );
    writeFileSync(
      join(project, 'tsconfig.worker.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'es2022',
          module: 'esnext',
          moduleResolution: 'bundler',
          lib: ['es2022', 'webworker'],
          strict: true,
          noEmit: true,
          types: [],
        },
        include: ['src/sw.ts'],
      }),
    );
    tool('typescript/bin/tsc', ['-p', 'tsconfig.json'], project);
    tool('typescript/bin/tsc', ['-p', 'tsconfig.worker.json'], project);

    writeFileSync(
      join(project, 'index.html'),
      '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Shop</title></head><body><script type="module" src="/src/main.ts"></script></body></html>',
    );
    tool('vite/bin/vite.js', ['build', '--logLevel', 'error'], project);
    const assets = readdirSync(join(project, 'dist/assets'));
    const bundle = assets.map((file) => readFileSync(join(project, 'dist/assets', file), 'utf8')).join('\n');
    // The SDK's own code is in the page's bundle.
    expect(bundle).toContain('PushClient.init: this browser has no service workers');
  });

  it('runs in Chromium: the built page, and the script-tag build without a bundler', async () => {
    const port = await freePort();
    const files: Record<string, string> = { '/pns.iife.js': resolve(WEB, 'dist/pns.iife.js') };
    server = createServer((req, res) => {
      const path = (req.url ?? '/').split('?')[0];
      if (path === '/no-bundler.html') {
        res.writeHead(200, { 'content-type': 'text/html' }).end(SCRIPT_TAG_HTML);
        return;
      }
      const file = files[path] ?? join(project, 'dist', path === '/' ? 'index.html' : path);
      if (!file.startsWith(join(project, 'dist')) && !Object.values(files).includes(file)) return void res.writeHead(404).end();
      if (!existsSync(file)) return void res.writeHead(404).end();
      const types: Record<string, string> = { '.html': 'text/html', '.js': 'text/javascript' };
      res.writeHead(200, { 'content-type': types[extname(file)] ?? 'application/octet-stream' });
      createReadStream(file).pipe(res);
    }).listen(port, '127.0.0.1');
    browser = await launchChromium();
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    const result = async (path: string) => {
      await page.goto(`http://localhost:${port}${path}`);
      await page.waitForFunction(() => (globalThis as any).document.body.dataset.result !== undefined);
      return JSON.parse(await page.evaluate(() => (globalThis as any).document.body.dataset.result as string)) as Record<string, unknown>;
    };
    await expect(result('/')).resolves.toEqual({ supported: true, init: 'function', error: 422, worker: '/sw.js' });
    await expect(result('/no-bundler.html')).resolves.toEqual({ supported: true, init: 'function', error: 'function' });
    expect(errors).toEqual([]);
  });
});
