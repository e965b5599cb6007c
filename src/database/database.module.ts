import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { env } from '../config/env';
import { dataSourceOptions } from './data-source';

/** The TypeORM connection; migrations run at start only when MIGRATE_ON_START=true. */
@Module({
  imports: [
    TypeOrmModule.forRootAsync({
      useFactory: () => ({ ...dataSourceOptions(), migrationsRun: env().MIGRATE_ON_START }),
    }),
  ],
})
export class DatabaseModule {}
