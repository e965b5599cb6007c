import type { Pool } from 'pg';
import type { DataSource } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';
import { env } from '../config/env';

/** The statement named, or unnamed when DATABASE_PREPARED_STATEMENTS is off. */
const statement = (name: string, text: string, values: unknown[]) => (env().DATABASE_PREPARED_STATEMENTS ? { name, text, values } : { text, values });

/**
 * Runs a statement of the request hot path as a named prepared statement, straight on the pool
 * TypeORM already holds (docs/decisions/0001-prepared-hot-statements.md); unnamed when
 * DATABASE_PREPARED_STATEMENTS is off (a pooler that cannot keep them). `name` is unique per `text`.
 */
export async function preparedQuery<Row>(db: DataSource, name: string, text: string, values: unknown[]): Promise<{ rows: Row[]; rowCount: number }> {
  const pool = (db.driver as PostgresDriver).master as Pool;
  const result = await pool.query(statement(name, text, values));
  return { rows: result.rows as Row[], rowCount: result.rowCount ?? 0 };
}
