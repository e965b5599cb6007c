import { Client } from 'pg';
import type { DataSource } from 'typeorm';

/** A DataSource as the repositories use it (query, transaction), over one pg client: the benches call repositories directly. */
export function clientDataSource(client: Client): DataSource {
  const query = async (sql: string, params?: unknown[]) => (await client.query(sql, params)).rows;
  return {
    query,
    transaction: async <T>(work: (manager: { query: typeof query }) => Promise<T>) => {
      await client.query('BEGIN');
      try {
        const result = await work({ query });
        await client.query('COMMIT');
        return result;
      } catch (error) {
        await client.query('ROLLBACK');
        throw error;
      }
    },
  } as unknown as DataSource;
}
