/**
 * PostgreSQL CPU by statement, from the server log of a bench run made with
 * BENCH_PG_STATEMENT_STATS=1 (log_statement_stats on the bench's database):
 *
 *   npx ts-node --transpile-only bench/tools/pg-statements.ts <server log> [first line] [database prefix]
 *
 * Sums each statement's user + system CPU (PostgreSQL's own getrusage per parse, bind, execute or
 * simple query) by its first 90 characters and phase, biggest first. Needs a log_line_prefix with
 * `[%p]` and `%d` (Debian's default `%m [%p] %q%u@%d `). Unlike the process CPU the bench prints,
 * it leaves out the WAL writer, checkpointer and autovacuum, and nothing else on the server counts.
 */
import { readFileSync } from 'node:fs';

const [path, from = '0', database = 'push_bench_test_'] = process.argv.slice(2);
if (!path) {
  process.stderr.write('usage: pg-statements.ts <server log> [first line] [database prefix]\n');
  process.exit(2);
}
const lines = readFileSync(path, 'utf8').split('\n').slice(Number(from));
const line = /^\S+ \S+ \S+ \[(\d+)\] (\S*) (LOG|DETAIL|STATEMENT):\s+(.*)$/;
const totals = new Map<string, { seconds: number; count: number }>();
const open = new Map<string, { phase: string; seconds: number }>();
for (let i = 0; i < lines.length; i++) {
  const m = line.exec(lines[i]);
  if (!m || !m[2].includes(`@${database}`)) continue;
  const [, pid, , kind, text] = m;
  if (kind === 'LOG' && text.endsWith('STATISTICS')) open.set(pid, { phase: text.split(' ')[0], seconds: 0 });
  else if (kind === 'DETAIL' && open.has(pid)) {
    const usage = /([\d.]+) s user, ([\d.]+) s system/.exec(lines[i + 1] ?? '');
    if (usage) open.get(pid)!.seconds = Number(usage[1]) + Number(usage[2]);
  } else if (kind === 'STATEMENT' && open.has(pid)) {
    let sql = text;
    for (let j = i + 1; j < lines.length && lines[j].startsWith('\t'); j++) sql += ` ${lines[j].trim()}`;
    const { phase, seconds } = open.get(pid)!;
    open.delete(pid);
    const key = `${phase.padEnd(8)} ${sql.replace(/\s+/g, ' ').trim().slice(0, 90)}`;
    const total = totals.get(key) ?? { seconds: 0, count: 0 };
    total.seconds += seconds;
    total.count += 1;
    totals.set(key, total);
  }
}
const all = [...totals.values()].reduce((sum, t) => sum + t.seconds, 0);
process.stdout.write(`PostgreSQL CPU of the statements of ${database}*: ${all.toFixed(3)} s\n`);
for (const [key, t] of [...totals].sort((a, b) => b[1].seconds - a[1].seconds).slice(0, 25)) {
  process.stdout.write(`${t.seconds.toFixed(3).padStart(8)} s ${String(t.count).padStart(6)} x ${key}\n`);
}
