import { Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { typeOrmModuleOptions } from './data-source';
import { SchemaStatus } from './schema-status';

/** TypeORM's own retry loop is off: main.ts waits for PostgreSQL first (DATABASE_CONNECT_TIMEOUT_MS). */
@Global()
@Module({
  imports: [TypeOrmModule.forRootAsync({ useFactory: () => ({ ...typeOrmModuleOptions(), retryAttempts: 0 }) })],
  providers: [SchemaStatus],
  exports: [SchemaStatus],
})
export class DatabaseModule {}
