/**
 * `npm run openapi:node`: writes the public API's OpenAPI document (the one /docs-json serves, with
 * the default Web Push allow-list) to clients/node/openapi.json; the root script then generates the
 * server SDK's types from it. src/common/http/public-openapi.spec.ts fails while the file is stale.
 */
import { NestFactory } from '@nestjs/core';
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { ApiModule } from '../src/app.module';
import { publicOpenApiText } from '../src/common/http/openapi';

async function main() {
  const file = resolve(__dirname, '../clients/node/openapi.json');
  const app = await NestFactory.create(ApiModule, { preview: true, logger: false, bodyParser: false });
  writeFileSync(file, publicOpenApiText(app));
  await app.close();
  process.stderr.write(`Wrote ${file}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
