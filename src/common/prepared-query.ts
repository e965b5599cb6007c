import type { Pool } from 'pg';
import type { DataSource } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';

export const PREPARED_STATEMENTS_OPTION = 'preparedStatements';

const named = (pool: Pool) => (pool.options as { [PREPARED_STATEMENTS_OPTION]?: boolean })[PREPARED_STATEMENTS_OPTION] !== false;

/** A hot statement on TypeORM's pool, named unless data-source.ts turns it off (docs/decisions/0001-prepared-hot-statements.md). */
export async function preparedQuery<Row>(db: DataSource, name: string, text: string, values: unknown[]): Promise<{ rows: Row[]; rowCount: number }> {
  const pool = (db.driver as PostgresDriver).master as Pool;
  const result = await pool.query(named(pool) ? { name, text, values } : { text, values });
  return { rows: result.rows as Row[], rowCount: result.rowCount ?? 0 };
}
