/**
 * The two attempts at the worst filter's count (bench/HISTORY.md "The worst filter the validator
 * accepts"), before and after in one run, on a scratch database of N installations seeded as the
 * audiences scenario does (bench/lib/audience-seed.ts):
 *
 *   before:  the count statement as AudiencesRepository.count sends it for WORST_FILTER;
 *   after 1: app_version's sort key stored in a generated column, so each of the 5 version
 *            conditions compares a column instead of computing app_version_key() (two regular
 *            expressions and a cast) again;
 *   after 2: that, and the property the 45 other conditions read taken from `properties` once a
 *            row (a LATERAL subquery kept apart by OFFSET 0) instead of twice per condition.
 *
 * Both rewrites are done on the statement's text here, to see what they are worth; neither is in
 * the service.
 *
 *   npx ts-node --transpile-only bench/tools/worst-filter-attempts.ts [--installations N] [--runs N]
 */
import { TEST_APP_KEY } from '../../test/support/processes';
import { countStatement } from '../lib/count-statement';
import { argValue } from '../lib/args';
import { withScratchAudience } from '../lib/scratch-audience';
import { WORST_FILTER, WORST_FILTER_LABEL } from '../worst-filter-shapes';

process.env.APP_KEY ??= TEST_APP_KEY;
const INSTALLATIONS = argValue('--installations', 1_000_000);
const RUNS = argValue('--runs', 2);
const log = (line: string) => process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${line}\n`);

async function main(): Promise<void> {
  await withScratchAudience('bench_worst_attempts', INSTALLATIONS, log, async (client, appId) => {
    let t = performance.now();
    await client.query(
      `ALTER TABLE installations ADD COLUMN app_version_sort integer[] GENERATED ALWAYS AS (app_version_key(device ->> 'app_version')) STORED`,
    );
    log(`the generated column added in ${((performance.now() - t) / 1000).toFixed(1)} s`);
    await client.query('VACUUM ANALYZE installations');

    const { sql, params } = await countStatement(appId, WORST_FILTER);
    const stored = sql.split(`app_version_key(i.device ->> 'app_version')`).join('i.app_version_sort');
    // Every property condition of WORST_FILTER reads the same key; its parameters stay referenced once, as PostgreSQL requires.
    const keys = [...stored.matchAll(/i\.properties -> (\$\d+::text)/g)].map((m) => m[1]);
    const key = params[Number(keys[0].slice(1, keys[0].indexOf(':'))) - 1] as string;
    if (keys.some((k) => params[Number(k.slice(1, k.indexOf(':'))) - 1] !== key)) throw new Error('WORST_FILTER reads more than one property');
    const once = stored
      .replace('FROM installations i', `FROM installations i CROSS JOIN LATERAL (SELECT i.properties -> '${key}' AS p OFFSET 0) x`)
      .replace(/i\.properties -> \$\d+::text/g, 'x.p')
      .replace('GROUP BY', `AND ARRAY[${keys.join(', ')}] IS NOT NULL GROUP BY`);
    const variants: [string, string][] = [
      ['before: app_version_key() computed for each condition', sql],
      ['after 1: the stored key', stored],
      ['after 2: the stored key, the property read once a row', once],
    ];
    const times = new Map<string, number[]>(variants.map(([label]) => [label, []]));
    for (let run = 0; run < RUNS; run++) {
      for (const [label, text] of variants) {
        t = performance.now();
        await client.query(text, params);
        times.get(label)!.push(performance.now() - t);
        log(`${label}: ${(performance.now() - t).toFixed(0)} ms`);
      }
    }
    process.stdout.write(
      `# ${WORST_FILTER_LABEL}, ${INSTALLATIONS.toLocaleString('en')} installations, ${RUNS} runs in turns\n\n| statement | ms |\n|---|---|\n`,
    );
    for (const [label, ms] of times) process.stdout.write(`| ${label} | ${ms.map((v) => v.toFixed(0)).join(', ')} |\n`);
  });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
