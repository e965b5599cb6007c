import type { TypeOrmModuleOptions } from '@nestjs/typeorm';
import { DataSourceOptions } from 'typeorm';
import { PREPARED_STATEMENTS_OPTION } from '../common/prepared-query';
import { env } from '../config/env';
import { ENTITIES } from './entities';
import { MIGRATIONS } from './migrations';

/** The one set of DataSource options (Nest, the CLI's `migrate`, `ormconfig.ts`); schema changes only through migrations. */
export function dataSourceOptions(url = env().DATABASE_URL): DataSourceOptions {
  return {
    type: 'postgres',
    url,
    entities: ENTITIES,
    migrations: MIGRATIONS,
    migrationsTableName: 'migrations',
    synchronize: false,
    migrationsRun: false,
    logging: false,
    extra: {
      max: env().DATABASE_POOL_SIZE,
      // Fail a request rather than hang it when every connection is busy for too long.
      connectionTimeoutMillis: 10_000,
      application_name: `push-${env().APP_MODE}`,
      [PREPARED_STATEMENTS_OPTION]: env().DATABASE_PREPARED_STATEMENTS,
    },
  };
}

/** The options Nest's TypeOrmModule gets, in the service and in the CLI. */
export function typeOrmModuleOptions(): TypeOrmModuleOptions {
  return { ...dataSourceOptions(), migrationsRun: env().MIGRATE_ON_START };
}
