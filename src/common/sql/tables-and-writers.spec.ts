import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

/** docs/architecture.md "Tables and their writers", kept true: every file that writes a table is named in its row. */
const ROOT = join(__dirname, '../../..');
const SRC = join(ROOT, 'src');

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'migrations' || name === 'queries' ? [] : sources(path);
    return name.endsWith('.ts') && !name.endsWith('.spec.ts') ? [path] : [];
  });
}

function rows(): Map<string, string> {
  const page = readFileSync(join(ROOT, 'docs/architecture.md'), 'utf8');
  const section = page.slice(page.indexOf('## Tables and their writers'), page.indexOf('## Where code goes'));
  const byTable = new Map<string, string>();
  for (const line of section.split('\n').filter((l) => l.startsWith('| `'))) {
    const [tables, ...writers] = line.split('|').slice(1, -1);
    for (const table of tables.match(/`([a-z_]+)`/g) ?? []) byTable.set(table.replace(/`/g, ''), writers.join('|'));
  }
  return byTable;
}

describe('Tables and their writers (docs/architecture.md)', () => {
  it('names every file that writes a table in that table’s row', () => {
    const listed = rows();
    const unlisted: string[] = [];
    for (const path of sources(SRC)) {
      const text = readFileSync(path, 'utf8');
      const file = relative(SRC, path).split('\\').join('/');
      for (const [table, writers] of listed) {
        const writes = new RegExp(`(INSERT INTO|UPDATE|DELETE FROM) ${table}\\b`).test(text);
        if (writes && !writers.includes(file)) unlisted.push(`${file} writes ${table}`);
      }
    }
    expect(unlisted).toEqual([]);
  });

  it('lists every table the migrations create', () => {
    const migrations = join(SRC, 'database/migrations');
    const created = new Set(
      readdirSync(migrations).flatMap((name) => [...readFileSync(join(migrations, name), 'utf8').matchAll(/CREATE TABLE "([a-z_]+)"/g)].map((m) => m[1])),
    );
    expect([...created].filter((table) => !rows().has(table))).toEqual([]);
  });
});
