// `prepack` (npm pack, npm publish): the tarball always carries a current dist/. Builds when a file
// the package exports is missing or older than a source, and says so on stderr (stdout is npm's, for
// `npm pack --json`); a current dist/ is packed as it is, so packing does not race a test reading it.
import { execSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const BUILT = ['dist/index.js', 'dist/index.d.ts', 'dist/worker.js', 'dist/worker.d.ts', 'dist/pns.iife.js', 'dist/worker.iife.js'];
const SOURCES = ['src', 'package.json', 'vite.config.ts', 'tsconfig.json', 'tsconfig.build.json'];

const newest = (path) => (statSync(path).isDirectory() ? Math.max(0, ...readdirSync(path).map((name) => newest(join(path, name)))) : statSync(path).mtimeMs);

const missing = BUILT.filter((file) => !existsSync(join(root, file)));
const stale = missing.length === 0 && Math.max(...SOURCES.map((file) => newest(join(root, file)))) > Math.min(...BUILT.map((file) => newest(join(root, file))));
if (missing.length > 0 || stale) {
  process.stderr.write(`prepack: building dist/ (${missing.length > 0 ? `missing ${missing.join(', ')}` : 'older than the sources'})\n`);
  execSync('npm run build', { cwd: root, stdio: ['ignore', process.stderr, process.stderr] });
} else {
  process.stderr.write('prepack: dist/ is current\n');
}
