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
 *      a three-condition filter and the worst filter the validator accepts; the median of 5 runs of each;
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
import type { DataSource } from 'typeorm';
import { FILTER_LIMITS, FilterNode, filterProblems } from '../../src/common/audience-filter';
import { compileFilter } from '../../src/common/audience-sql';
import { FanOutRepository } from '../../src/delivery/fan-out/fan-out.repository';
import { AudiencesRepository } from '../../src/notifications/audiences/audiences.repository';
import { TEST_APP_KEY } from '../../test/support/processes';
import { createTestDatabase, dropTestDatabase, testDatabaseName } from '../../test/support/test-database';
import { argValue } from '../lib/args';
import type { EnvironmentVariables } from '../../src/config/env';

process.env.APP_KEY ??= TEST_APP_KEY;

const INSTALLATIONS = argValue('--installations', 1_000_000);

const log = (line: string) => process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${line}\n`);
const out = (line = '') => process.stdout.write(`${line}\n`);
const ms = (start: bigint) => Number(process.hrtime.bigint() - start) / 1e6;

/** The last statement a repository call sends, and its parameters, without running it. */
async function captured(call: (db: DataSource) => Promise<unknown>): Promise<{ sql: string; params: unknown[] }> {
  let statement: { sql: string; params: unknown[] } | undefined;
  const recorder = {
    query: (sql: string, params: unknown[] = []) => {
      statement = { sql, params };
      return Promise.resolve([]);
    },
    transaction: <T>(work: (manager: unknown) => Promise<T>) => work(recorder),
  };
  await call(recorder as unknown as DataSource);
  return statement!;
}

const CONFIG = { AUDIENCE_STATEMENT_TIMEOUT_MS: 600_000 } as EnvironmentVariables;

/**
 * The tag the seeding gives to exactly the installations the three-condition filter selects
 * (android, app_version >= 4.2, a French locale), in SQL on the seed's n; checked before use. Given
 * by a later UPDATE, it would move those rows together into the table's last pages, and a tag send
 * would read 1,238 pages where the filter's matches lie on thousands (bench/HISTORY.md "Audiences").
 */
const SELECTED_TAG = 'selected';
const SELECTED_BY_N = `n % 20 BETWEEN 10 AND 16 AND n / 3 % 12 IN (2, 3) AND n % 2 = 1 AND n / 7 % 13 >= 2`;

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

/**
 * The costliest filter the validator accepts (issue 51, Measured 3): 50 conditions, 5 of them on
 * app_version, under a `not` that makes them one `or` no index serves, each true for every
 * installation so that every one is checked on every row.
 */
const WORST = 'worst filter the validator accepts (not of 50, 5 on app_version)';
FILTERS[WORST] = {
  not: {
    and: [
      { and: Array.from({ length: FILTER_LIMITS.computed }, (_, k) => c('app_version', 'gt', `0.${k}`)) },
      ...[20, 20, 5].map((n, g) => ({ and: Array.from({ length: n }, (_, k) => c('properties.plan', 'gt', `a${g}${k}`)) })),
    ],
  },
};
if (filterProblems(FILTERS[WORST]).length > 0) throw new Error(`${WORST}: refused by the validator`);

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
      await client.query(
        `INSERT INTO installations (app_id, installation_id, platform, push_token, user_id, permission, registered_at, last_seen_at, device, tags, properties)
         SELECT $1, 'inst-' || n, CASE WHEN n % 20 < 10 THEN 'ios' WHEN n % 20 < 17 THEN 'android' ELSE 'web' END,
           md5(n::text) || md5((-n)::text), 'user-' || (n / 2), CASE WHEN n % 50 = 0 THEN 'denied' ELSE 'granted' END,
           now() - (n % 700) * interval '1 day', now() - (hashint4(n) & 65535) * interval '2 minutes',
           jsonb_build_object('app_version', (3 + n % 2)::text || '.' || (n / 7 % 13)::text || '.' || (n % 5)::text,
             'locale', (ARRAY['en_US','en_GB','fr_FR','fr_CA','de_DE','es_ES','it_IT','pt_BR','nl_NL','ja_JP','zh_CN','pl_PL'])[1 + n / 3 % 12],
             'timezone', 'Europe/Paris'),
           CASE WHEN n % 100 = 0 THEN '{beta,vip}'::text[] WHEN n % 20 = 1 THEN '{beta}'::text[] ELSE '{}'::text[] END
             || CASE WHEN ${SELECTED_BY_N} THEN ARRAY['${SELECTED_TAG}'] ELSE '{}'::text[] END,
           jsonb_build_object('plan', CASE WHEN n % 20 = 3 THEN 'team' WHEN n % 4 = 0 THEN 'pro' ELSE 'free' END,
             'purchases', n % 17, 'last_purchase_at', 1764115200 - (hashint4(n + 7) & 8388607), 'city', 'city-' || (n % 300))
         FROM generate_series(1, $2) AS n`,
        [app, count],
      );
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
    const countOf = async (label: string, filter: FilterNode) => {
      const { sql, params } = await captured((d) => new AudiencesRepository(d, CONFIG).count(appId, { kind: 'filter', filter, now: new Date() }));
      const plan = (await client.query(`EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) ${sql}`, params)).rows.map((r: Record<string, string>) => r['QUERY PLAN']);
      const times: number[] = [];
      let rows: Awaited<ReturnType<AudiencesRepository['count']>> = [];
      for (let i = 0; i < 5; i++) {
        const t = process.hrtime.bigint();
        rows = await repository.count(appId, { kind: 'filter', filter, now: new Date() });
        times.push(ms(t));
      }
      times.sort((a, b) => a - b);
      const total = rows.find((r) => r.platform === null);
      out();
      out(
        `## ${label}: ${total?.installations ?? 0} installations, count median ${times[2].toFixed(0)} ms (min ${times[0].toFixed(0)}, max ${times[4].toFixed(0)})`,
      );
      out('```');
      for (const line of plan) out(line);
      out('```');
      log(`${label}: ${times[2].toFixed(0)} ms`);
    };
    for (const [label, filter] of Object.entries(FILTERS)) await countOf(label, filter);
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
