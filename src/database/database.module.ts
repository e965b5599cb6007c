import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { typeOrmModuleOptions } from './data-source';

/**
 * The service's TypeORM connection; migrations run at start only when MIGRATE_ON_START=true.
 * TypeORM's retry loop stays on here, so the service rides out a database that starts after it
 * (the CLI registers its own connection, without retries).
 */
@Module({
  imports: [TypeOrmModule.forRootAsync({ useFactory: typeOrmModuleOptions })],
})
export class DatabaseModule {}
