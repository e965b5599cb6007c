import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { dataSourceOptions } from './src/database/data-source';

/** The DataSource the TypeORM CLI uses (`npm run migration:generate`). */
export default new DataSource(dataSourceOptions());
