import { randomBytes } from 'node:crypto';
import { assertBuilt, killAllServices } from './processes';
import { deleteRedisPrefix } from './services';
import { createTestDatabase, dropTestDatabase } from './test-database';

export interface BuiltServiceStores {
  /** The block's own migrated database; set by the beforeAll this helper declares. */
  readonly database: { name: string; url: string };
  /** The block's own BullMQ key prefix in the shared Redis. */
  readonly queuePrefix: string;
}

/**
 * For a describe block whose tests spawn the built service or CLI (`dist/`): its own migrated
 * database and Redis prefix, made in a beforeAll. The afterAll kills every spawned service before
 * it drops the database and deletes the prefix. Later hooks of the block run after these, as Jest
 * runs hooks in the order they are declared.
 */
export function useBuiltServices(): BuiltServiceStores {
  let database: { name: string; url: string } | undefined;
  const queuePrefix = `test-${randomBytes(6).toString('hex')}`;
  beforeAll(async () => {
    assertBuilt();
    database = await createTestDatabase();
  });
  afterAll(async () => {
    await killAllServices();
    if (database) await dropTestDatabase(database.name);
    await deleteRedisPrefix(queuePrefix);
  });
  return {
    get database() {
      if (!database) throw new Error("useBuiltServices' database was used before its beforeAll made it");
      return database;
    },
    queuePrefix,
  };
}
