import { INestApplication, Type } from '@nestjs/common';
import { Test, TestingModuleBuilder } from '@nestjs/testing';
import { getDataSourceToken } from '@nestjs/typeorm';
import { randomBytes } from 'node:crypto';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { configureHttpApp } from '../../src/app.factory';
import { ApiModule } from '../../src/app.module';
import { AppsModule } from '../../src/apps/apps.module';
import { CredentialsModule } from '../../src/credentials/credentials.module';
import { databaseUrl, deleteRedisPrefix } from './services';
import { createTestDatabase, dropTestDatabase, testDatabaseName } from './test-database';

export interface TestContext {
  app: INestApplication;
  db: DataSource;
  databaseUrl: string;
  queuePrefix: string;
  /** supertest against the app's HTTP server */
  http: () => ReturnType<typeof request>;
  get<T>(type: Type<T>): T;
  close(): Promise<void>;
}

/**
 * An app built from the production module (same guard, pipe, filter) on its own migrated
 * database and its own Redis key prefix, so test files run in parallel and in any order.
 * `env` is applied before the configuration is first read; `override` can replace providers
 * (e.g. the log destination) before the module is compiled.
 */
export interface TestAppOptions {
  module?: Type;
  env?: Record<string, string>;
  override?: (builder: TestingModuleBuilder) => TestingModuleBuilder;
}

export async function createTestApp(options: TestAppOptions = {}): Promise<TestContext> {
  // The configuration is read once per test file, so it is complete before anything reads it.
  const name = testDatabaseName();
  const queuePrefix = `test-${randomBytes(6).toString('hex')}`;
  Object.assign(process.env, { DATABASE_URL: databaseUrl(name), QUEUE_PREFIX: queuePrefix, DATABASE_POOL_SIZE: '10' }, options.env);
  const database = await createTestDatabase(name);

  // AppsModule and CredentialsModule give the factories what the CLI has: tenants and their
  // provider credentials, even in an api-only app.
  const builder = Test.createTestingModule({ imports: [options.module ?? ApiModule, AppsModule, CredentialsModule] });
  const moduleRef = await (options.override ? options.override(builder) : builder).compile();
  const app = configureHttpApp(moduleRef.createNestApplication({ bodyParser: false, logger: process.env.TEST_LOGS ? undefined : false }));
  await app.init();
  const server = app.getHttpServer();
  return {
    app,
    db: app.get<DataSource>(getDataSourceToken()),
    databaseUrl: database.url,
    queuePrefix,
    http: () => request(server),
    get: (type) => app.get(type, { strict: false }),
    async close() {
      await app.close();
      await Promise.all([dropTestDatabase(database.name), deleteRedisPrefix(queuePrefix)]);
    },
  };
}

/**
 * The app of one describe block: built in its beforeAll, closed (database dropped, Redis keys
 * deleted) in its afterAll. Call it in the describe body; the returned context can be captured
 * at once and is usable from the first beforeAll declared after this call. `options` may be a
 * function, run in that beforeAll, when it needs what an earlier beforeAll made (fakes' URLs).
 *
 * Jest runs hooks in the order they are declared, afterAll included: a teardown that must run
 * while the app is still open (killing a worker process that uses its database) is declared
 * before this call, one that must wait until it is closed (stopping provider fakes) after it.
 */
export function useTestApp(options: TestAppOptions | (() => TestAppOptions | Promise<TestAppOptions>) = {}): TestContext {
  let ctx: TestContext | undefined;
  beforeAll(async () => {
    ctx = await createTestApp(typeof options === 'function' ? await options() : options);
  });
  afterAll(() => ctx?.close());
  return new Proxy({} as TestContext, {
    get(_target, key) {
      // Not a thenable: `await` on the context must not reach the guard below.
      if (key === 'then') return undefined;
      if (!ctx) throw new Error(`The test app was used (${String(key)}) before useTestApp's beforeAll built it`);
      // eslint-disable-next-line @typescript-eslint/unbound-method -- called on the proxy, whose reads reach ctx: `this` works
      return ctx[key as keyof TestContext];
    },
  });
}
