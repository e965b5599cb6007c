/**
 * What audience filters (docs/api.md#audience-filters) cost on many installations, in a scratch
 * database with the real migrations:
 *
 *   1. N installations (default 1,000,000) with realistic properties: half iOS, 35% Android, 15%
 *      web; app versions 3.0 to 4.12; 12 languages; last seen over 90 days; tags beta (5%) and vip
 *      (1%); properties plan (free 70%, pro 25%, team 5%), purchases, last_purchase_at, city;
 *   2. EXPLAIN (ANALYZE, BUFFERS) of the count statement (AudiencesRepository.count, as the API runs
 *      it) for an equality on a property, a range on app_version (with the migration's index on
 *      app_version_key(), then without it, to say what the range costs without one), within_last on last_seen_at, an or of tags
 *      a three-condition filter; the median of 5 runs of each; then the candidates for the worst
 *      filter the validator accepts (bench/worst-filter-shapes.ts), one count each on the other
 *      app's tenth, and the chosen one (WORST_FILTER) as the others, median of 3;
 *   3. the fan-out (FanOutRepository.nextChunk, the worker's own statements, chunks of 5,000) of a
 *      tag send and of filter sends, in installations per second, and the chunks each took; then,
 *      like for like, the three-condition filter against a tag given to exactly its installations,
 *      five pairs, tag then filter, and the ratio of each pair.
 *
 *   npx ts-node --transpile-only bench/scenarios/index.ts audiences [--installations N]
 *
 * It prints a report and exits.
 */
import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { clientDataSource } from '../lib/client-data-source';
import type { FilterNode } from '../../src/common/audience-filter';
import { compileFilter } from '../../src/common/audience-sql';
import { FanOutRepository } from '../../src/delivery/fan-out/fan-out.repository';
import { AudiencesRepository } from '../../src/notifications/audiences/audiences.repository';
import { TEST_APP_KEY } from '../../test/support/processes';
import { createTestDatabase, dropTestDatabase, testDatabaseName } from '../../test/support/test-database';
import { captured } from '../lib/count-statement';
import { argValue } from '../lib/args';
import { SELECTED_TAG, seedAudience } from '../lib/audience-seed';
import { WORST_CANDIDATES, WORST_FILTER_LABEL } from '../worst-filter-shapes';
import type { EnvironmentVariables } from '../../src/config/env';

process.env.APP_KEY ??= TEST_APP_KEY;

const INSTALLATIONS = argValue('--installations', 1_000_000);

const log = (line: string) => process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${line}\n`);
const out = (line = '') => process.stdout.write(`${line}\n`);
const ms = (start: bigint) => Number(process.hrtime.bigint() - start) / 1e6;

const CONFIG = { AUDIENCE_STATEMENT_TIMEOUT_MS: 600_000 } as EnvironmentVariables;

const c = (field: string, op: string, value?: unknown) => (value === undefined ? { field, op } : { field, op, value }) as FilterNode;

const FILTERS: Record<string, FilterNode> = {
  'equality on a property (plan = team)': c('properties.plan', 'eq', 'team'),
  'range on app_version (>= 4.11)': c('app_version', 'gte', '4.11'),
  'within_last on last_seen_at (2d)': c('last_seen_at', 'within_last', '2d'),
  'or of tags (vip or beta)': { or: [c('tags', 'contains', 'vip'), c('tags', 'contains', 'beta')] },
  'three conditions (android, >= 4.2, fr)': { and: [c('platform', 'eq', 'android'), c('app_version', 'gte', '4.2'), c('language', 'eq', 'fr')] },
  'three conditions (ios, pro, not seen in 7d)': {
    and: [c('platform', 'eq', 'ios'), c('properties.plan', 'eq', 'pro'), c('last_seen_at', 'not_within_last', '7d')],
  },
};

async function main() {
  const name = testDatabaseName('bench_audiences');
  log(`scratch database ${name}; ${INSTALLATIONS} installations`);
  const { url } = await createTestDatabase(name);
  const client = new Client({ connectionString: url });
  await client.connect();
  const db = clientDataSource(client);
  try {
    const [{ id: appId }] = (await client.query(`INSERT INTO apps (name) VALUES ('bench') RETURNING id`)).rows;
    // Another app's installations, so the app's own index range is what is read.
    const [{ id: otherId }] = (await client.query(`INSERT INTO apps (name) VALUES ('other') RETURNING id`)).rows;
    const start = process.hrtime.bigint();
    for (const [app, count] of [
      [appId, INSTALLATIONS],
      [otherId, Math.round(INSTALLATIONS / 10)],
    ] as const) {
      for (let first = 1; first <= count; first += 200_000) await seedAudience(client, app, Math.min(200_000, count - first + 1), first);
    }
    await client.query('VACUUM ANALYZE installations');
    log(`installations in ${ms(start).toFixed(0)} ms`);
    const sizes = (
      await client.query(
        `SELECT relname, pg_size_pretty(pg_relation_size(oid)) AS size FROM pg_class
         WHERE relname IN ('installations', 'installations_properties_idx', 'installations_tags_idx', 'installations_app_id_installation_id_key')`,
      )
    ).rows as { relname: string; size: string }[];

    out(`# Audiences on ${INSTALLATIONS.toLocaleString('en')} installations (+${Math.round(INSTALLATIONS / 10).toLocaleString('en')} of another app)`);
    out();
    out(`Relation sizes: ${sizes.map((s) => `${s.relname} ${s.size}`).join(', ')}`);
    const repository = new AudiencesRepository(db, CONFIG);
    const countOf = async (label: string, filter: FilterNode, runs = 5) => {
      const { sql, params } = await captured((d) => new AudiencesRepository(d, CONFIG).count(appId, { kind: 'filter', filter, now: new Date() }));
      const plan = (await client.query(`EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) ${sql}`, params)).rows.map((r: Record<string, string>) => r['QUERY PLAN']);
      const times: number[] = [];
      let rows: Awaited<ReturnType<AudiencesRepository['count']>> = [];
      for (let i = 0; i < runs; i++) {
        const t = process.hrtime.bigint();
        rows = await repository.count(appId, { kind: 'filter', filter, now: new Date() });
        times.push(ms(t));
      }
      times.sort((a, b) => a - b);
      const total = rows.find((r) => r.platform === null);
      out();
      const median = times[Math.floor(runs / 2)];
      out(
        `## ${label}: ${total?.installations ?? 0} installations, count median ${median.toFixed(0)} ms (min ${times[0].toFixed(0)}, max ${times[runs - 1].toFixed(0)})`,
      );
      out('```');
      for (const line of plan) out(line);
      out('```');
      log(`${label}: ${median.toFixed(0)} ms`);
    };
    for (const [label, filter] of Object.entries(FILTERS)) await countOf(label, filter);
    // The worst filter's candidates (bench/worst-filter-shapes.ts), once each on the other app's
    // tenth: which condition costs most when every one is checked on every row.
    out();
    out(`## Candidates for the worst filter the validator accepts, one count each on the other app's ${Math.round(INSTALLATIONS / 10).toLocaleString('en')}`);
    out();
    out('| filter | ms |');
    out('|---|---|');
    for (const [label, filter] of Object.entries(WORST_CANDIDATES)) {
      const t = process.hrtime.bigint();
      await repository.count(otherId, { kind: 'filter', filter, now: new Date() });
      out(`| ${label}${label === WORST_FILTER_LABEL ? ' (WORST_FILTER)' : ''} | ${ms(t).toFixed(0)} |`);
      log(`candidate ${label}: ${ms(t).toFixed(0)} ms`);
    }
    await countOf(`worst filter the validator accepts: ${WORST_FILTER_LABEL}`, WORST_CANDIDATES[WORST_FILTER_LABEL], 3);
    await client.query(`DROP INDEX installations_app_version_idx`);
    await client.query('ANALYZE installations');
    out();
    out(`(For comparison: the same range without installations_app_version_idx, the migration's index on app_version_key().)`);
    await countOf('range on app_version (>= 4.11), without its index', FILTERS['range on app_version (>= 4.11)']);
    await client.query(`CREATE INDEX installations_app_version_idx ON installations (app_id, app_version_key(device ->> 'app_version'))`);
    await client.query('ANALYZE installations');

    // Fan-outs: the worker's own statements, chunk by chunk, into deliveries.
    const fanOut = async (label: string, kind: 'tags' | 'filter', value: string[] | FilterNode) => {
      const id = randomUUID();
      await client.query(
        `INSERT INTO notifications (id, app_id, title, body, user_ids, target_users, recipient_kind, tags, recipient_filter, processing_started_at)
         VALUES ($1, $2, 'Hello', 'World', '{}', 0, $3, $4, $5, now())`,
        [id, appId, kind, kind === 'tags' ? value : null, kind === 'filter' ? JSON.stringify(value) : null],
      );
      const fanOuts = new FanOutRepository(db);
      const t = process.hrtime.bigint();
      let installations = 0;
      let chunks = 0;
      for (;;) {
        const chunk = await fanOuts.nextChunk(id, {
          appId,
          chunkSize: 5000,
          batchSize: 500,
          wanted: ['ios', 'android', 'web'],
          configured: ['apns', 'fcm', 'web_push'],
          silentless: [],
          fixedDue: null,
          cap: null,
          paceMs: null,
          topic: null,
          marketing: false,
          audienceTimeoutMs: 600_000,
        });
        if (!chunk) break;
        installations += chunk.installations;
        chunks++;
      }
      const seconds = ms(t) / 1000;
      out(
        `| ${label} | ${installations.toLocaleString('en')} | ${chunks} | ${seconds.toFixed(1)} | ${Math.round(installations / seconds).toLocaleString('en')} |`,
      );
      log(`fan-out ${label}: ${installations} in ${seconds.toFixed(1)} s`);
      return installations / seconds;
    };
    out();
    out(`## Fan-out (FanOutRepository.nextChunk, at most 5,000 installations a chunk; a filter's audience staged by its first)`);
    out();
    out('| send | installations | chunks | seconds | installations/s |');
    out('|---|---|---|---|---|');
    const tagRate = await fanOut('tags: ["beta"]', 'tags', ['beta']);
    const sameRate = await fanOut('filter: tags contains beta (the same installations)', 'filter', c('tags', 'contains', 'beta'));
    const threeRate = await fanOut('filter: android, >= 4.2, fr', 'filter', FILTERS['three conditions (android, >= 4.2, fr)']);
    const tagAgain = await fanOut('tags: ["beta"], again (drift)', 'tags', ['beta']);
    // Like for like at the filter's own selectivity: the seeding gave a tag to exactly the
    // installations the three conditions select, so a tag send and the filter send reach the same
    // audience, its rows where the seeding wrote them.
    const three = compileFilter(FILTERS['three conditions (android, >= 4.2, fr)'], 3, new Date());
    const [same] = (
      await client.query(
        `SELECT count(*) FILTER (WHERE ${three.sql})::int AS filter, count(*) FILTER (WHERE i.tags @> ARRAY[$2])::int AS tag,
           count(*) FILTER (WHERE COALESCE((${three.sql}), false) = (i.tags @> ARRAY[$2]))::int AS agree, count(*)::int AS total
         FROM installations i WHERE i.app_id = $1`,
        [appId, SELECTED_TAG, ...three.params],
      )
    ).rows as { filter: number; tag: number; agree: number; total: number }[];
    if (same.filter !== same.tag || same.agree !== same.total) throw new Error(`"${SELECTED_TAG}" is not the filter's audience: ${JSON.stringify(same)}`);
    log(`the filter's ${same.filter} installations carry the tag "${SELECTED_TAG}"`);
    // Five pairs, tag then filter, so that the machine's drift falls on both alike.
    const PAIRS = 5;
    const ratios: number[] = [];
    for (let pair = 1; pair <= PAIRS; pair++) {
      const tagged = await fanOut(`tags: ["${SELECTED_TAG}"] (the three conditions' installations), pair ${pair}`, 'tags', [SELECTED_TAG]);
      const filtered = await fanOut(`filter: android, >= 4.2, fr, pair ${pair}`, 'filter', FILTERS['three conditions (android, >= 4.2, fr)']);
      ratios.push(filtered / tagged);
    }
    const sorted = [...ratios].sort((a, b) => a - b);
    out();
    out(
      `filter / tag rate: same installations ${(sameRate / tagRate).toFixed(2)}, three conditions ${(threeRate / tagRate).toFixed(2)} ` +
        `(tag send again: ${(tagAgain / tagRate).toFixed(2)} of the first)`,
    );
    out(
      `three conditions / a tag on the same installations, ${PAIRS} pairs: ${ratios.map((r) => r.toFixed(2)).join(', ')}; ` +
        `median ${sorted[Math.floor(PAIRS / 2)].toFixed(2)}, lowest ${sorted[0].toFixed(2)}`,
    );
  } finally {
    await client.end();
    await dropTestDatabase(name);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
