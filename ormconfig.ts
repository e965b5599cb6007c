import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { dataSourceOptions } from './src/database/data-source';
import { resolveDatabaseUrl } from './src/database/embedded/resolve-database-url';

/** The DataSource the TypeORM CLI uses (`npm run migration:generate`); DATABASE_URL=embedded joins or starts the embedded PostgreSQL. */
export default resolveDatabaseUrl().then(() => new DataSource(dataSourceOptions()));
