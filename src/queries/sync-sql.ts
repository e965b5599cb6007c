import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { withNames } from '../common/sql/named';
import { StatementRecorder } from './capture';
import { SQL_FILES, SqlFile } from './sql-cases';

/**
 * Writes src/queries/<repository>.sql: every repository method's final SQL, as captured by calling
 * it on a StatementRecorder (the calls are in sql-cases.ts). `npm run sql:sync` runs it; the test
 * beside it (sync-sql.spec.ts) renders the same files in memory and fails when one is stale, so a
 * change to a statement shows in the diff as the SQL PostgreSQL will run.
 */
export const QUERIES_DIR = __dirname;

const HEADER = '-- Written by `npm run sql:sync` (src/queries/sync-sql.ts) from the calls in src/queries/sql-cases.ts; do not edit.\n';

/** The statement as written in the repository, without the indentation of the code around it. */
export function tidy(sql: string): string {
  const lines = sql.replace(/\s+$/, '').split('\n');
  while (lines.length > 0 && lines[0].trim() === '') lines.shift();
  const rest = lines.slice(1).filter((line) => line.trim() !== '');
  const indent = Math.min(...rest.map((line) => line.length - line.trimStart().length));
  return [lines[0].trim(), ...lines.slice(1).map((line) => line.slice(Math.min(indent, line.length - line.trimStart().length)))].join('\n') + ';';
}

/** One file's text: each case's statements under its name, in the order the method sends them. */
export async function render(file: SqlFile): Promise<string> {
  const sections: string[] = [];
  for (const sqlCase of file.cases) {
    const recorder = new StatementRecorder([...(sqlCase.answers ?? [])]);
    await sqlCase.call(recorder.asDataSource());
    if (recorder.statements.length === 0) throw new Error(`${sqlCase.name} sent no statement`);
    sections.push(`-- ${sqlCase.name}\n${recorder.statements.map((s) => tidy(withNames(s.sql))).join('\n\n')}\n`);
  }
  return `${HEADER}\n${sections.join('\n')}`;
}

/** Every file as it should be, by name. */
export async function renderAll(): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  for (const file of SQL_FILES) files.set(file.file, await render(file));
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
