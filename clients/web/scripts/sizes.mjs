// Prints what each entry point weighs (with the chunks it imports), raw and gzipped, and fails
// the build past the budget: the page API loads on every page of a site and the worker on every
// push, so both have to stay small.
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';

const BUDGET_GZIP_BYTES = 5 * 1024;
const DIST = new URL('../dist/', import.meta.url);

/** The file and every chunk it imports, recursively (the ES build shares one chunk). */
function withImports(file, seen = new Set()) {
  if (seen.has(file)) return seen;
  seen.add(file);
  const code = readFileSync(new URL(file, DIST), 'utf8');
  for (const [, chunk] of code.matchAll(/\bfrom\s*["']\.\/([^"']+\.js)["']/g)) withImports(chunk, seen);
  return seen;
}

let over = false;
for (const entry of ['index.js', 'pns.iife.js', 'worker.js', 'worker.iife.js']) {
  const code = Buffer.concat([...withImports(entry)].map((file) => readFileSync(new URL(file, DIST))));
  const gzip = gzipSync(code, { level: 9 }).length;
  over ||= gzip > BUDGET_GZIP_BYTES;
  console.log(
    `pns-web-sdk ${entry.padEnd(15)} ${(code.length / 1024).toFixed(1).padStart(5)} KiB, ${(gzip / 1024).toFixed(1)} KiB gzipped (budget ${BUDGET_GZIP_BYTES / 1024} KiB)`,
  );
}
if (over) {
  console.error('pns-web-sdk: an entry point is over its gzip budget');
  process.exit(1);
}
