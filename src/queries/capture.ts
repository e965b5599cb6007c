import type { DataSource } from 'typeorm';

/** One statement a repository method sent, as PostgreSQL receives it. */
export interface CapturedStatement {
  sql: string;
  params: unknown[];
}

/**
 * A stand-in for TypeORM's DataSource that records each statement instead of running it, so the
 * SQL files (src/queries/*.sql) show exactly what the repositories send. It answers every query
 * from `answers`, in order, and then as TypeORM would answer a statement that found no rows:
 * `[[], 0]` for an UPDATE or DELETE, `[]` otherwise. Transactions run their callback on the same
 * recorder; prepared statements (common/prepared-query.ts) are recorded through the pool.
 */
export class StatementRecorder {
  readonly statements: CapturedStatement[] = [];

  constructor(private readonly answers: unknown[] = []) {}

  query = async (sql: string, params: unknown[] = []): Promise<unknown> => {
    this.statements.push({ sql, params });
    if (this.answers.length > 0) return this.answers.shift();
    return /^\s*(UPDATE|DELETE)\b/i.test(sql) ? [[], 0] : [];
  };

  transaction = async <T>(work: (manager: unknown) => Promise<T>): Promise<T> => work(this);

  get manager(): unknown {
    return this;
  }

  readonly driver = {
    master: {
      options: {},
      query: async (config: { text: string; values: unknown[] }) => {
        const rows = await this.query(config.text, config.values);
        return { rows: Array.isArray(rows) && !Array.isArray(rows[0]) ? rows : [], rowCount: 0 };
      },
    },
  };

  /** For a repository's constructor. */
  asDataSource(): DataSource {
    return this as unknown as DataSource;
  }
}
