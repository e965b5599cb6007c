import type { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { ApiModule } from '../../app.module';
import { publicOpenApiText } from './openapi';

const FILE = resolve(__dirname, '../../../clients/node/openapi.json');

/**
 * The server SDK (clients/node) generates its types from the public document checked in as
 * clients/node/openapi.json; clients/node/src/api.generated.test.ts checks that generation step.
 */
describe("the server SDK's copy of the public OpenAPI document", () => {
  let app: INestApplication;
  beforeAll(async () => {
    app = await NestFactory.create(ApiModule, { preview: true, logger: false, bodyParser: false });
  });
  afterAll(() => app?.close());

  it('is checked in as the code builds it (else: npm run openapi:node)', () => {
    expect(readFileSync(FILE, 'utf8')).toBe(publicOpenApiText(app));
  });
});
