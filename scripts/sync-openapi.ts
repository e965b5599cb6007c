/**
 * `npm run openapi:admin` and `npm run openapi:node`: writes an OpenAPI document to the client that
 * is generated from it; the root script then generates that client's types.
 * - `admin`: the operator dashboard's, built from AdminController (src/admin/admin-openapi.ts), to
 *   clients/admin/openapi.json; src/admin/admin-openapi.spec.ts fails while the file is stale.
 * - `node`: the public API's (the one /docs-json serves, with the default Web Push allow-list), to
 *   clients/node/openapi.json; src/common/http/public-openapi.spec.ts fails while it is stale.
 */
import { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { adminOpenApiText } from '../src/admin/admin-openapi';
import { ApiModule } from '../src/app.module';
import { publicOpenApiText } from '../src/common/http/openapi';

const DOCUMENTS: Record<string, (app: INestApplication) => string> = { admin: adminOpenApiText, node: publicOpenApiText };

async function main(client: string) {
  const text = DOCUMENTS[client];
  if (!text) throw new Error(`Usage: sync-openapi.ts ${Object.keys(DOCUMENTS).join('|')}`);
  const file = resolve(__dirname, `../clients/${client}/openapi.json`);
  const app = await NestFactory.create(ApiModule, { preview: true, logger: false, bodyParser: false });
  writeFileSync(file, text(app));
  await app.close();
  process.stderr.write(`Wrote ${file}\n`);
}

main(process.argv[2] ?? '').catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
