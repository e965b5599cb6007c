import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** The files `GET /sdk/v1/<name>` serves (docs/api.md#web-sdk), by the name of clients/web's build output. */
export const WEB_SDK_FILES = { 'pns.js': 'pns.iife.js', 'pns-sw.js': 'worker.iife.js' } as const;
export type WebSdkName = keyof typeof WEB_SDK_FILES;

export interface WebSdkFile {
  body: Buffer;
  /** Strong ETag: the first 32 hex digits of the file's SHA-256, quoted. */
  etag: string;
  /** Subresource Integrity value: `sha384-` and the base64 SHA-384. */
  integrity: string;
}

/** clients/web/dist, from dist/src/sdk in a build or src/sdk in the sources (the image copies it beside dist). */
export function webSdkDir(): string | null {
  const candidates = [resolve(__dirname, '../../../clients/web/dist'), resolve(__dirname, '../../clients/web/dist')];
  return candidates.find((dir) => existsSync(join(dir, WEB_SDK_FILES['pns.js']))) ?? null;
}

/** Read once: the files change only with a new build, and a new build is a new process. */
export function loadWebSdk(dir = webSdkDir()): Map<WebSdkName, WebSdkFile> {
  const files = new Map<WebSdkName, WebSdkFile>();
  if (!dir) return files;
  for (const [name, file] of Object.entries(WEB_SDK_FILES) as [WebSdkName, string][]) {
    const path = join(dir, file);
    if (!existsSync(path)) continue;
    const body = readFileSync(path);
    files.set(name, {
      body,
      etag: `"${createHash('sha256').update(body).digest('hex').slice(0, 32)}"`,
      integrity: `sha384-${createHash('sha384').update(body).digest('base64')}`,
    });
  }
  return files;
}
