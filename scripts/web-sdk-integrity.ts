import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadWebSdk, WEB_SDK_FILES, webSdkDir } from '../src/sdk/web-sdk-files';

/**
 * `npm run sdk:integrity` (after `npm run build`): writes the integrity of each file `GET /sdk/v1/...`
 * serves into docs/api.md#web-sdk, between its markers. test/integration/web-sdk-route.int-spec.ts
 * fails while the documented values are not the served files'.
 */
export const START = '<!-- web-sdk-integrity: written by npm run sdk:integrity -->';
export const END = '<!-- /web-sdk-integrity -->';

export function integrityTable(files = loadWebSdk()): string {
  const rows = Object.keys(WEB_SDK_FILES).map((name) => {
    const file = files.get(name as keyof typeof WEB_SDK_FILES);
    if (!file) throw new Error(`clients/web/dist lacks ${WEB_SDK_FILES[name as keyof typeof WEB_SDK_FILES]}: run npm run build`);
    return `| \`/sdk/v1/${name}\` | ${file.body.length.toLocaleString('en')} bytes | \`${file.integrity}\` |`;
  });
  return [START, '', '| File | Size | `integrity` |', '|---|---|---|', ...rows, '', END].join('\n');
}

if (require.main === module) {
  if (!webSdkDir()) throw new Error('clients/web/dist is missing: run npm run build');
  const path = join(__dirname, '../docs/api.md');
  const page = readFileSync(path, 'utf8');
  const from = page.indexOf(START);
  const to = page.indexOf(END);
  if (from < 0 || to < 0) throw new Error(`docs/api.md lacks the markers ${START} and ${END}`);
  writeFileSync(path, page.slice(0, from) + integrityTable() + page.slice(to + END.length));
  process.stdout.write('docs/api.md#web-sdk: integrity written\n');
}
