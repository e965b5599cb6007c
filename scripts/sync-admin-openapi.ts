/**
 * `npm run openapi:admin`: writes the operator dashboard's OpenAPI document, built from
 * AdminController (src/admin/admin-openapi.ts), to clients/admin/openapi.json; the root script
 * then generates the dashboard's types from it. src/admin/admin-openapi.spec.ts fails while the
 * file is stale.
 */
import { NestFactory } from '@nestjs/core';
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { adminOpenApiText } from '../src/admin/admin-openapi';
import { ApiModule } from '../src/app.module';

async function main() {
  const file = resolve(__dirname, '../clients/admin/openapi.json');
  const app = await NestFactory.create(ApiModule, { preview: true, logger: false, bodyParser: false });
  writeFileSync(file, adminOpenApiText(app));
  await app.close();
  process.stderr.write(`Wrote ${file}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
