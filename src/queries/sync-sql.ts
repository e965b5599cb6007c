import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { withNames } from '../common/sql/named';
import type { DataSource } from 'typeorm';
import { StatementRecorder } from './capture';
import { sqlRepositories } from './generate-sql';
import { SQL_FILES } from './sql-cases';

/**
 * Writes src/queries/<repository>.sql: every repository method's final SQL, as captured by calling
 * it on a StatementRecorder, once per `@GenerateSql` case written on the method (generate-sql.ts;
 * the repositories not moved there yet have theirs in sql-cases.ts). `npm run sql:sync` runs it;
 * the test beside it (sync-sql.spec.ts) renders the same files in memory and fails when one is
 * stale, so a change to a statement shows in the diff as the SQL PostgreSQL will run.
 */
export const QUERIES_DIR = __dirname;
export const SRC_DIR = join(__dirname, '..');

const LEGACY_HEADER = '-- Written by `npm run sql:sync` (src/queries/sync-sql.ts) from the calls in src/queries/sql-cases.ts; do not edit.\n';
const header = (source: string) => `-- Written by \`npm run sql:sync\` (src/queries/sync-sql.ts) from the @GenerateSql cases of src/${source}; do not edit.\n`;

/** One call of a repository method, named as its entry in the file. */
export interface RenderCase {
  name: string;
  call: (db: DataSource) => Promise<unknown>;
  answers?: unknown[];
}

export interface RenderFile {
  /** The file under src/queries/. */
  file: string;
  header: string;
  cases: RenderCase[];
}

/** Every `*.repository.ts` under src/, relative to it, with / separators. */
export function repositoryFiles(): string[] {
  return readdirSync(SRC_DIR, { recursive: true, encoding: 'utf8' })
    .map((path) => path.split('\\').join('/'))
    .filter((path) => path.endsWith('.repository.ts'))
    .sort();
}

/** Every repository file's exports, by file: loading them runs their decorators. */
export function loadRepositories(): Map<string, Record<string, unknown>> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- the files are found, not named
  return new Map(repositoryFiles().map((path) => [path, require(join(SRC_DIR, path)) as Record<string, unknown>]));
}

/** Every SQL file's cases: the `@SqlFile` repositories' and, until they move, sql-cases.ts's. */
export function sqlFiles(): RenderFile[] {
  const sourceOf = new Map<unknown, string>();
  for (const [path, exports] of loadRepositories()) for (const value of Object.values(exports)) sourceOf.set(value, path);
  const files: RenderFile[] = SQL_FILES.map((file) => ({ ...file, header: LEGACY_HEADER }));
  for (const { repository, options, cases } of sqlRepositories()) {
    if (files.some((f) => f.file === options.file)) throw new Error(`${options.file}: written by two classes, or by one and sql-cases.ts`);
    files.push({
      file: options.file,
      header: header(sourceOf.get(repository) ?? repository.name),
      cases: cases.map(({ method, name, params, answers }) => ({
        name: `${repository.name}.${method}${name ? ` (${name})` : ''}`,
        call: (db) => (options.build(db) as Record<string, (...args: unknown[]) => Promise<unknown>>)[method](...params),
        answers,
      })),
    });
  }
  return files;
}

/** The statement as written in the repository, without the indentation of the code around it. */
export function tidy(sql: string): string {
  const lines = sql.replace(/\s+$/, '').split('\n');
  while (lines.length > 0 && lines[0].trim() === '') lines.shift();
  const rest = lines.slice(1).filter((line) => line.trim() !== '');
  const indent = Math.min(...rest.map((line) => line.length - line.trimStart().length));
  return [lines[0].trim(), ...lines.slice(1).map((line) => line.slice(Math.min(indent, line.length - line.trimStart().length)))].join('\n') + ';';
}

/** One file's text: each case's statements under its name, in the order the method sends them. */
export async function render(file: RenderFile): Promise<string> {
  const sections: string[] = [];
  for (const sqlCase of file.cases) {
    const recorder = new StatementRecorder([...(sqlCase.answers ?? [])]);
    await sqlCase.call(recorder.asDataSource());
    if (recorder.statements.length === 0) throw new Error(`${sqlCase.name} sent no statement`);
    sections.push(`-- ${sqlCase.name}\n${recorder.statements.map((s) => tidy(withNames(s.sql))).join('\n\n')}\n`);
  }
  return `${file.header}\n${sections.join('\n')}`;
}

/** Every file as it should be, by name. */
export async function renderAll(): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  for (const file of sqlFiles()) files.set(file.file, await render(file));
  return files;
}

export const stored = (name: string): string | null => {
  try {
    return readFileSync(join(QUERIES_DIR, name), 'utf8');
  } catch {
    return null;
  }
};

if (require.main === module) {
  // The repositories' prepared statements read the environment (common/prepared-query.ts).
  process.env.APP_KEY ??= Buffer.alloc(32).toString('base64');
  void renderAll().then((files) => {
    for (const [name, text] of files) {
      if (stored(name) === text) continue;
      writeFileSync(join(QUERIES_DIR, name), text);
      process.stderr.write(`wrote src/queries/${name}\n`);
    }
  });
}
