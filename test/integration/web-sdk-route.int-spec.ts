import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { integrityTable } from '../../scripts/web-sdk-integrity';
import { useTestApp } from '../support/create-test-app';

const DIST = join(__dirname, '../../clients/web/dist');
const API_DOC = readFileSync(join(__dirname, '../../docs/api.md'), 'utf8');

/** docs/api.md#web-sdk: the api serves clients/web's script-tag builds, cacheable, with the integrity the page documents. */
describe('the web SDK served (docs/api.md#web-sdk)', () => {
  const ctx = useTestApp();

  beforeAll(() => {
    if (!existsSync(join(DIST, 'pns.iife.js'))) throw new Error('clients/web/dist is missing: run npm run build first');
  });

  it.each([
    ['/sdk/v1/pns.js', 'pns.iife.js', 'Pns'],
    ['/sdk/v1/pns-sw.js', 'worker.iife.js', 'PnsWorker'],
  ])('GET %s: the build output, public, cacheable for 5 minutes, an ETag and CORS for integrity checks', async (path, file, global) => {
    const built = readFileSync(join(DIST, file));
    const res = await ctx
      .http()
      .get(path)
      .buffer(true)
      .parse((response, done) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => done(null, Buffer.concat(chunks)));
      });
    expect(res.status).toBe(200);
    expect(Buffer.compare(res.body as Buffer, built)).toBe(0);
    expect(res.text ?? (res.body as Buffer).toString()).toContain(global);
    expect(res.headers).toMatchObject({
      'content-type': 'text/javascript; charset=utf-8',
      'cache-control': 'public, max-age=300',
      etag: `"${createHash('sha256').update(built).digest('hex').slice(0, 32)}"`,
      'access-control-allow-origin': '*',
      'cross-origin-resource-policy': 'cross-origin',
      'x-content-type-options': 'nosniff',
    });

    const again = await ctx.http().get(path).set('If-None-Match', res.headers.etag);
    expect(again.status).toBe(304);
    expect(again.text ?? '').toBe('');
    expect((await ctx.http().get(path).set('If-None-Match', '"stale"')).status).toBe(200);
  });

  it('documents the integrity of exactly the files it serves (npm run sdk:integrity rewrites the table)', () => {
    expect(API_DOC).toContain(integrityTable());
    for (const file of ['pns.iife.js', 'worker.iife.js']) {
      const integrity = `sha384-${createHash('sha384')
        .update(readFileSync(join(DIST, file)))
        .digest('base64')}`;
      expect(API_DOC).toContain(integrity);
    }
  });
});
