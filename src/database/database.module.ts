import { Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { typeOrmModuleOptions } from './data-source';
import { SchemaStatus } from './schema-status';

/**
 * The service's TypeORM connection; migrations run at start only when MIGRATE_ON_START=true.
 * main.ts waits for PostgreSQL before Nest starts (DATABASE_CONNECT_TIMEOUT_MS), so TypeORM's
 * own retry loop, which logs a stack per attempt, is off. Global for SchemaStatus, which the API's
 * guard and readiness check read.
 */
@Global()
@Module({
  imports: [TypeOrmModule.forRootAsync({ useFactory: () => ({ ...typeOrmModuleOptions(), retryAttempts: 0 }) })],
  providers: [SchemaStatus],
  exports: [SchemaStatus],
})
export class DatabaseModule {}
