import type { DataSource } from 'typeorm';

/**
 * How the SQL files (src/queries/*.sql, `npm run sql:sync`) capture a repository, written next to
 * its code as Immich's `@GenerateSql`: `@SqlFile` on the class names the file it writes, and each
 * `@GenerateSql` on a method is one call of it on a StatementRecorder (capture.ts). The decorators
 * only record; nothing reads them outside src/queries/, so they cost nothing at run time.
 */

/** One call of a method: its entry in the SQL file is `Class.method`, or `Class.method (name)`. */
export interface GenerateSqlCase {
  /** Tells apart the cases of a method that builds its SQL per case. */
  name?: string;
  /** The method's arguments. */
  params: unknown[];
  /** What the recorder answers the method's statements, in order, where it needs a row to go on. */
  answers?: unknown[];
}

/** A repository's SQL file and how to build the repository on the recorder's DataSource. */
export interface SqlFileOptions {
  file: string;
  build: (db: DataSource) => object;
}

export interface RecordedCase extends GenerateSqlCase {
  method: string;
}

type RepositoryClass = abstract new (...args: never[]) => object;

const filesOf = new Map<RepositoryClass, SqlFileOptions>();
const casesOf = new Map<RepositoryClass, RecordedCase[]>();

/** A case of the method; repeatable, the cases keep the order they are written in. */
export function GenerateSql(sqlCase: GenerateSqlCase): MethodDecorator {
  return (prototype, method) => {
    const repository = prototype.constructor as RepositoryClass;
    const cases = casesOf.get(repository) ?? [];
    // A method's decorators apply from the bottom up: each goes before the ones already there.
    const first = cases.findIndex((c) => c.method === method);
    cases.splice(first === -1 ? cases.length : first, 0, { ...sqlCase, method: String(method) });
    casesOf.set(repository, cases);
  };
}

/** The file under src/queries/ the repository's cases write; `build` when its constructor takes more than the DataSource. */
export function SqlFile(file: string, build?: (db: DataSource) => object): ClassDecorator {
  return (repository) => {
    const constructor = repository as unknown as new (db: DataSource) => object;
    filesOf.set(repository as unknown as RepositoryClass, { file, build: build ?? ((db) => new constructor(db)) });
  };
}

/** The repositories loaded so far that name a SQL file, with their cases in the order of their methods. */
export function sqlRepositories(): { repository: RepositoryClass; options: SqlFileOptions; cases: RecordedCase[] }[] {
  return [...filesOf].map(([repository, options]) => ({ repository, options, cases: casesOf.get(repository) ?? [] }));
}

/** The cases of a repository, whether or not it names a file. */
export function sqlCasesOf(repository: RepositoryClass): RecordedCase[] {
  return casesOf.get(repository) ?? [];
}
