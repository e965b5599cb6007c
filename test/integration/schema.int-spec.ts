import { DataSource } from 'typeorm';
import { dataSourceOptions } from '../../src/database/data-source';
import { createTestDatabase, dropTestDatabase } from '../support/test-database';

/**
 * One source for the schema: the migrations make it, the entities describe it. After every
 * migration has run, TypeORM's schema builder must find nothing to change, so an entity and the
 * migrations cannot drift apart unnoticed (docs/architecture.md "Tests"). The partitioned tables
 * (deliveries, notification_events) are compared through their parent, as TypeORM reads them.
 */
describe('entities and migrations', () => {
  let name: string;
  let db: DataSource;

  beforeAll(async () => {
    const database = await createTestDatabase();
    name = database.name;
    db = new DataSource({ ...dataSourceOptions(database.url), extra: { max: 1 } });
    await db.initialize();
  });

  afterAll(async () => {
    await db?.destroy();
    if (name) await dropTestDatabase(name);
  });

  it('agree: the schema builder finds nothing to change after the migrations', async () => {
    const changes = await db.driver.createSchemaBuilder().log();
    const pending = changes.upQueries.map((q) => q.query);
    expect({ pending, fix: 'make the entity say what the migrations made, or add a migration' }).toEqual({ pending: [], fix: expect.any(String) });
  });
});
