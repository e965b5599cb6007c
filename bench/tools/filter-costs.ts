/**
 * What one condition of each kind costs when PostgreSQL checks it on every installation of an app
 * (docs/api.md#audience-filters "Cost"): the figures behind FILTER_COSTS and FILTER_LIMITS.cost
 * (bench/HISTORY.md "The filter cost budget"). On a scratch database of N installations seeded as
 * the audiences scenario does, each kind is counted as a `not` over an `and` of 1 and of 11 such
 * conditions, each true for every installation, so all of them are checked on every row; the
 * difference over 10 is one condition's cost. Runs in turns, medians.
 *
 *   npx ts-node --transpile-only bench/tools/filter-costs.ts [--installations N] [--runs N]
 */
import { FILTER_LIMITS, type FilterNode, filterCost } from '../../src/common/audience-filter';
import { TEST_APP_KEY } from '../../test/support/processes';
import { countStatement } from '../lib/count-statement';
import { argValue } from '../lib/args';
import { withScratchAudience } from '../lib/scratch-audience';
import { WORST_CANDIDATES, WORST_FILTER_LABEL } from '../worst-filter-shapes';

process.env.APP_KEY ??= TEST_APP_KEY;
const INSTALLATIONS = argValue('--installations', 200_000);
const RUNS = argValue('--runs', 3);
const log = (line: string) => process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${line}\n`);

const range = (n: number) => Array.from({ length: n }, (_, k) => k);
const c = (field: string, op: string, value?: unknown) => (value === undefined ? { field, op } : { field, op, value }) as FilterNode;
const strings = (k: number, n: number) => range(n).map((v) => `${'x'.repeat(180)}-${k}-${v}`.padEnd(200, 'y'));

/** Condition k of each kind, true for every seeded installation (bench/lib/audience-seed.ts). */
const KINDS: Record<string, (k: number) => FilterNode> = {
  'platform ne': () => c('platform', 'ne', 'huawei'),
  'last_seen_at lt': (k) => c('last_seen_at', 'lt', new Date(Date.UTC(2100, 0, 1 + k)).toISOString()),
  'user_id not_in 100 strings': (k) => c('user_id', 'not_in', strings(k, 100)),
  'registered_at lt': (k) => c('registered_at', 'lt', new Date(Date.UTC(2100, 0, 1 + k)).toISOString()),
  'properties.city ne': (k) => c('properties.city', 'ne', `nowhere-${k}`),
  'properties.purchases gte': (k) => c('properties.purchases', 'gte', -1 - k),
  'properties.purchases not_in 10 numbers': (k) =>
    c(
      'properties.purchases',
      'not_in',
      range(10).map((v) => 1000 + k * 100 + v),
    ),
  'properties.purchases not_in 100 numbers': (k) =>
    c(
      'properties.purchases',
      'not_in',
      range(100).map((v) => 1000 + k * 100 + v),
    ),
  'properties.plan not_in 100 strings': (k) => c('properties.plan', 'not_in', strings(k, 100)),
  'language ne': (k) => c('language', 'ne', `q${'abcdefghijk'[k]}`),
  'language not_in 100': (k) =>
    c(
      'language',
      'not_in',
      range(100).map((v) => `q${k}${v}`.replace(/[0-9]/g, (d) => 'abcdefghij'[Number(d)])),
    ),
  'app_version gt': (k) => c('app_version', 'gt', `0.${k}`),
};

/** `not` over an `and` of `n` conditions of a kind: every one is checked on every row. */
const checkedOnEveryRow = (kind: (k: number) => FilterNode, n: number): FilterNode => {
  const conditions = range(n).map(kind);
  const groups: FilterNode[] = [];
  for (let i = 0; i < conditions.length; i += 20) groups.push({ and: conditions.slice(i, i + 20) });
  return { not: { and: groups } };
};

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const out = (line = '') => process.stdout.write(`${line}\n`);

async function main(): Promise<void> {
  await withScratchAudience('bench_filter_costs', INSTALLATIONS, log, async (client, appId) => {
    await client.query('VACUUM ANALYZE installations');
    const statements = new Map<string, [{ sql: string; params: unknown[] }, { sql: string; params: unknown[] }]>();
    for (const [label, kind] of Object.entries(KINDS)) {
      statements.set(label, [await countStatement(appId, checkedOnEveryRow(kind, 1)), await countStatement(appId, checkedOnEveryRow(kind, 11))]);
    }
    const times = new Map<string, [number[], number[]]>([...statements.keys()].map((label) => [label, [[], []]]));
    for (let run = 0; run < RUNS; run++) {
      for (const [label, pair] of statements) {
        for (const i of [0, 1] as const) {
          const t = performance.now();
          await client.query(pair[i].sql, pair[i].params);
          times.get(label)![i].push(performance.now() - t);
        }
        log(`${label}: ${times.get(label)![0].at(-1)!.toFixed(0)} ms with 1, ${times.get(label)![1].at(-1)!.toFixed(0)} ms with 11`);
      }
    }
    out(`# One condition checked on every one of ${INSTALLATIONS.toLocaleString('en')} installations (${RUNS} runs in turns, medians)`);
    out();
    out('| condition | count with 1, ms | with 11, ms | one condition, ns a row | its cost (FILTER_COSTS) |');
    out('|---|---|---|---|---|');
    for (const [label, [one, eleven]] of times) {
      const perRow = ((median(eleven) - median(one)) / 10 / INSTALLATIONS) * 1e6;
      const cost = filterCost(KINDS[label](0));
      out(`| ${label} | ${median(one).toFixed(0)} | ${median(eleven).toFixed(0)} | ${perRow.toFixed(0)} | ${cost} |`);
    }
    // The worst filter's candidates (bench/worst-filter-shapes.ts), each filling the budget: which kind costs most.
    const candidates = new Map<string, { sql: string; params: unknown[] }>();
    for (const [label, filter] of Object.entries(WORST_CANDIDATES)) candidates.set(label, await countStatement(appId, filter));
    const candidateTimes = new Map<string, number[]>([...candidates.keys()].map((label) => [label, []]));
    for (let run = 0; run < RUNS; run++) {
      for (const [label, { sql, params }] of candidates) {
        const t = performance.now();
        await client.query(sql, params);
        candidateTimes.get(label)!.push(performance.now() - t);
        log(`candidate ${label}: ${candidateTimes.get(label)!.at(-1)!.toFixed(0)} ms`);
      }
    }
    out();
    out(`## Filters of cost ${FILTER_LIMITS.cost}, every condition checked on every row, ${INSTALLATIONS.toLocaleString('en')} installations`);
    out();
    out('| filter | count, ms (median) |');
    out('|---|---|');
    for (const [label, ms] of candidateTimes) out(`| ${label}${label === WORST_FILTER_LABEL ? ' (WORST_FILTER)' : ''} | ${median(ms).toFixed(0)} |`);
  });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
