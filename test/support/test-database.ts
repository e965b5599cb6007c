import { randomBytes } from 'node:crypto';
import { basename } from 'node:path';
import { DataSource } from 'typeorm';
import { dataSourceOptions } from '../../src/database/data-source';
import { databaseUrl, withAdminClient } from './services';

/**
 * A test database's name: `push_test_<label>_<creation time, base36 ms>_<random>`. The time lets
 * the global setup of any jest run drop only what earlier runs left behind: a database a running
 * file made but is not connected to at that moment (between two tests) must survive.
 */
export function testDatabaseName(label = currentTestFile()): string {
  const slug = label
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .slice(0, 30);
  return `push_test_${slug}_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
}

/** When a database named by testDatabaseName was created; undefined for any other name. */
export function testDatabaseCreatedAt(name: string): Date | undefined {
  const match = /_([0-9a-z]{8,9})_[0-9a-f]{8}$/.exec(name);
  return match ? new Date(parseInt(match[1], 36)) : undefined;
}

/**
 * Where the global setup hands the test files the name of its template: a database it migrated
 * once for the whole jest run, which each test database copies instead of running every migration.
 */
export const TEMPLATE_DATABASE_ENV = 'TEST_TEMPLATE_DATABASE';

/**
 * A migrated database: a copy of the run's template when the global setup made one (every jest
 * file), else created and migrated here (the benchmarks, which run outside jest).
 */
export async function createTestDatabase(name = testDatabaseName()): Promise<{ name: string; url: string }> {
  if (!name.includes('test')) throw new Error(`Refusing to use database ${name}: its name must contain "test"`);
  const template = process.env[TEMPLATE_DATABASE_ENV];
  if (template) {
    await withAdminClient((client) => client.query(`CREATE DATABASE "${name}" TEMPLATE "${template}"`));
    return { name, url: databaseUrl(name) };
  }
  return createMigratedDatabase(name);
}

/**
 * The run's template: migrated once, then closed to connections, as PostgreSQL copies a database
 * only while nobody is connected to it. Its name is unique to the run (testDatabaseName), so runs
 * from several checkouts on one server never share, nor drop, each other's template.
 */
export async function createTemplateDatabase(): Promise<string> {
  const { name } = await createMigratedDatabase(testDatabaseName('template'));
  await withAdminClient((client) => client.query(`ALTER DATABASE "${name}" ALLOW_CONNECTIONS false`));
  return name;
}

async function createMigratedDatabase(name: string): Promise<{ name: string; url: string }> {
  await withAdminClient((client) => client.query(`CREATE DATABASE "${name}"`));
  const url = databaseUrl(name);
  const migrator = new DataSource({ ...dataSourceOptions(url), extra: { max: 1 } });
  await migrator.initialize();
  try {
    await migrator.runMigrations({ transaction: 'each' });
  } finally {
    await migrator.destroy();
  }
  return { name, url };
}

export async function dropTestDatabase(name: string): Promise<void> {
  if (!name.includes('test')) throw new Error(`Refusing to drop database ${name}`);
  await withAdminClient((client) => client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
}

function currentTestFile(): string {
  const path = expect.getState().testPath ?? 'test';
  return basename(path).replace(/\.(e2e-|int-)?spec\.ts$/, '');
}
