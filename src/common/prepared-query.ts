import type { Pool } from 'pg';
import type { DataSource } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';

/** The pool option database/data-source.ts sets from DATABASE_PREPARED_STATEMENTS; unset means on. */
export const PREPARED_STATEMENTS_OPTION = 'preparedStatements';

const named = (pool: Pool) => (pool.options as { [PREPARED_STATEMENTS_OPTION]?: boolean })[PREPARED_STATEMENTS_OPTION] !== false;

/**
 * Runs a statement of the request hot path as a named prepared statement, straight on the pool
 * TypeORM already holds. Each pg connection parses and plans it once; afterwards a request sends
 * only Bind/Execute, not the statement text (docs/decisions/0001-prepared-hot-statements.md).
 * `name` must be unique per `text`.
 * Statements prepared this way list their columns rather than `*`, so a migration that adds a
 * column does not invalidate ("cached plan must not change result type") a live connection's plan.
 * DATABASE_PREPARED_STATEMENTS=false sends the same statements unnamed, parsed every time: for a
 * transaction pooler that cannot keep a named statement on the connection it lends next
 * (PgBouncer before 1.21, or without max_prepared_statements; docs/operations.md, Scaling).
 */
export async function preparedQuery<Row>(db: DataSource, name: string, text: string, values: unknown[]): Promise<{ rows: Row[]; rowCount: number }> {
  const pool = (db.driver as PostgresDriver).master as Pool;
  const result = await pool.query(named(pool) ? { name, text, values } : { text, values });
  return { rows: result.rows as Row[], rowCount: result.rowCount ?? 0 };
}
