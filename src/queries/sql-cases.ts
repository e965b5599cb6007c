import type { DataSource } from 'typeorm';

/**
 * The cases of the repositories whose cases have not moved next to their methods yet
 * (`@GenerateSql`, generate-sql.ts): how each method is called to capture its SQL
 * (src/queries/sync-sql.ts), one case per method, and one per case of a method that builds its SQL
 * per case (the fan-out per recipients kind). `answers` are what the recorder hands back to the
 * method's queries in order, where the method needs a row to go on (StatementRecorder). A
 * repository's entry goes when its class takes `@SqlFile`; the sync test reads both.
 */
export interface SqlCase {
  name: string;
  call: (db: DataSource) => Promise<unknown>;
  answers?: unknown[];
}

export interface SqlCasesFile {
  /** The file under src/queries/. */
  file: string;
  cases: SqlCase[];
}

export const SQL_FILES: SqlCasesFile[] = [];
