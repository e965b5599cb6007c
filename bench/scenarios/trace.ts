/**
 * What the delivery trace (docs/api.md#delivery-trace) costs on a notification of 1,000,000
 * deliveries. In a scratch database:
 *
 *   1. 1,000,000 installations (2% with permission denied), fanned out by the worker's own
 *      statements (FanOutRepository.nextChunk, 5,000 installations a chunk), timed;
 *   2. its deliveries then take outcomes as the worker writes them (97%
 *      accepted, 1% pending with a retry reason, 10 failed), plus 10% received, 5% displayed and
 *      1% opened events; the HOT share of those updates is printed;
 *   3. EXPLAIN (ANALYZE, BUFFERS) of the trace's statement (DeliveryTraceRepository) for: the first
 *      page, a page from the middle, status=accepted, status=failed (10 rows in a million, the
 *      bounded scan) and, for comparison, status=failed with no bound; the median time of 20 runs
 *      of each; and whole walks (unfiltered at limit 1,000; status=failed) page by page.
 *
 *   npx ts-node --transpile-only bench/scenarios/index.ts trace [--deliveries N]
 *
 * Run it under `flock /work/wt/e2e.lock` on the shared machine. It prints a report and exits.
 */
import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { FanOutRepository } from '../../src/delivery/fan-out/fan-out.repository';
import { TRACE_PAGE_SQL, traceParams, TraceQuery, TraceRow } from '../../src/notifications/trace/delivery-trace.repository';
import { pageOf, TRACE_SCAN_ROWS } from '../../src/notifications/trace/delivery-trace.service';
import { TEST_APP_KEY } from '../../test/support/processes';
import { createTestDatabase, dropTestDatabase, testDatabaseName } from '../../test/support/test-database';
import { argValue } from '../lib/args';
import { clientDataSource } from '../lib/client-data-source';

process.env.APP_KEY ??= TEST_APP_KEY;

const DELIVERIES = argValue('--deliveries', 1_000_000);
const CHUNK = 5000;

const log = (line: string) => process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${line}\n`);
const out = (line = '') => process.stdout.write(`${line}\n`);
const ms = (start: bigint) => Number(process.hrtime.bigint() - start) / 1e6;

/** The fan-out of an `all` send, chunk by chunk as the worker runs it; answers the chunks it took. */
async function fanOut(client: Client, appId: string, notificationId: string): Promise<number> {
  const fanOuts = new FanOutRepository(clientDataSource(client));
  let chunks = 0;
  const all = ['ios', 'android', 'web'] as const;
  for (;;) {
    const chunk = await fanOuts.nextChunk(notificationId, {
      appId,
      chunkSize: CHUNK,
      batchSize: 500,
      wanted: [...all],
      configured: ['apns', 'fcm', 'web_push'],
      silentless: [],
      fixedDue: null,
      cap: null,
      paceMs: null,
      topic: null,
      marketing: false,
      audienceTimeoutMs: 600_000,
    });
    if (!chunk) return chunks;
    if (chunk.installations > 0) chunks++;
  }
}

async function newNotification(client: Client, appId: string): Promise<string> {
  const id = randomUUID();
  await client.query(
    `INSERT INTO notifications (id, app_id, title, body, user_ids, target_users, recipient_kind, processing_started_at)
     VALUES ($1, $2, 'Hello', 'World', '{}', 0, 'all', now())`,
    [id, appId],
  );
  return id;
}

async function explain(client: Client, q: TraceQuery): Promise<string[]> {
  const { rows } = await client.query(`EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) ${TRACE_PAGE_SQL}`, traceParams(q));
  return rows.map((r: Record<string, string>) => r['QUERY PLAN']);
}

async function median(client: Client, q: TraceQuery, runs = 20): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = process.hrtime.bigint();
    await client.query(TRACE_PAGE_SQL, traceParams(q));
    times.push(ms(start));
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(runs / 2)];
}

/** A whole walk as the service pages (pageOf): pages, entries, total and slowest page in ms. */
async function walk(client: Client, base: Omit<TraceQuery, 'after' | 'rows'>, limit: number) {
  let after: string | null = null;
  let pages = 0;
  let entries = 0;
  let slowest = 0;
  const start = process.hrtime.bigint();
  do {
    const one = process.hrtime.bigint();
    const { rows } = await client.query<TraceRow>(TRACE_PAGE_SQL, traceParams({ ...base, after, rows: limit + 1 }));
    slowest = Math.max(slowest, ms(one));
    const page = pageOf(rows, limit, base.scanLimit);
    pages++;
    entries += page.entries.length;
    after = page.next;
  } while (after);
  return { pages, entries, totalMs: ms(start), slowestPageMs: slowest };
}

async function main() {
  const name = testDatabaseName('bench_trace');
  log(`scratch database ${name}; ${DELIVERIES} installations`);
  const { url } = await createTestDatabase(name);
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    const [{ id: appId }] = (await client.query(`INSERT INTO apps (name) VALUES ('bench') RETURNING id`)).rows;
    let start = process.hrtime.bigint();
    await client.query(
      `INSERT INTO installations (app_id, installation_id, platform, push_token, user_id, permission, registered_at, last_seen_at)
       SELECT $1, 'inst-' || n, 'ios', md5(n::text) || md5((-n)::text), 'user-' || n, CASE WHEN n % 50 = 0 THEN 'denied' ELSE 'granted' END, now(), now()
       FROM generate_series(1, $2) AS n`,
      [appId, DELIVERIES],
    );
    await client.query('VACUUM ANALYZE installations');
    log(`installations in ${ms(start).toFixed(0)} ms`);

    // 1. The fan-out, as the worker runs it.
    const traced = await newNotification(client, appId);
    start = process.hrtime.bigint();
    const chunks = await fanOut(client, appId, traced);
    const fanOutMs = ms(start);
    log(`fan-out in ${fanOutMs.toFixed(0)} ms, ${chunks} chunks`);
    await client.query('VACUUM ANALYZE deliveries');

    // 2. Outcomes, as the worker writes them (one UPDATE per kind here; HOT either way), and events.
    const [{ relid }] = (await client.query(`SELECT tableoid::regclass::text AS relid FROM deliveries WHERE notification_id = $1 LIMIT 1`, [traced])).rows;
    const before = (
      await client.query(`SELECT n_tup_upd::bigint AS upd, n_tup_hot_upd::bigint AS hot FROM pg_stat_user_tables WHERE relid = $1::regclass`, [relid])
    ).rows[0];
    start = process.hrtime.bigint();
    await client.query(
      `UPDATE deliveries SET status = 'accepted', attempts = 1, updated_at = now() WHERE notification_id = $1 AND status = 'pending'
         AND abs(hashtext(installation_id::text)) % 100 <> 0`,
      [traced],
    );
    await client.query(
      `UPDATE deliveries SET attempts = 1, reason = 'ServiceUnavailable', next_attempt_at = now() + interval '1 hour', updated_at = now()
       WHERE notification_id = $1 AND status = 'pending'`,
      [traced],
    );
    await client.query(
      `UPDATE deliveries SET status = 'failed', reason = 'BadDeviceToken', updated_at = now()
       WHERE notification_id = $1 AND installation_id IN (
         SELECT installation_id FROM deliveries WHERE notification_id = $1 AND status = 'accepted' ORDER BY md5(installation_id::text) LIMIT 10)`,
      [traced],
    );
    log(`outcomes in ${ms(start).toFixed(0)} ms`);
    await client.query(
      `INSERT INTO notification_events (notification_id, installation_id, type, notification_started_at, occurred_at)
       SELECT d.notification_id, d.installation_id, t.type, d.notification_started_at, now()
       FROM deliveries d CROSS JOIN (VALUES ('received', 10), ('displayed', 20), ('opened', 100)) AS t(type, every)
       WHERE d.notification_id = $1 AND d.status = 'accepted' AND abs(hashtext(d.installation_id::text || 'e')) % t.every = 0`,
      [traced],
    );
    await new Promise((r) => setTimeout(r, 1500)); // statistics reach pg_stat_user_tables
    await client.query('SELECT pg_stat_clear_snapshot()');
    const after = (
      await client.query(`SELECT n_tup_upd::bigint AS upd, n_tup_hot_upd::bigint AS hot FROM pg_stat_user_tables WHERE relid = $1::regclass`, [relid])
    ).rows[0];
    await client.query('VACUUM ANALYZE deliveries');
    await client.query('VACUUM ANALYZE notification_events');

    const counts = (
      await client.query(`SELECT status, count(*)::int AS n FROM deliveries WHERE notification_id = $1 GROUP BY status ORDER BY status`, [traced])
    ).rows;
    const [{ n: events }] = (await client.query(`SELECT count(*)::int AS n FROM notification_events WHERE notification_id = $1`, [traced])).rows;
    const [{ started }] = (await client.query(`SELECT processing_started_at::text AS started FROM notifications WHERE id = $1`, [traced])).rows;
    const [{ middle }] = (
      await client.query(`SELECT installation_id::text AS middle FROM deliveries WHERE notification_id = $1 ORDER BY installation_id OFFSET $2 LIMIT 1`, [
        traced,
        Math.floor(DELIVERIES / 2),
      ])
    ).rows;
    const [{ size }] = (await client.query(`SELECT pg_size_pretty(pg_total_relation_size($1::regclass)) AS size`, [relid])).rows;

    out(`Delivery trace on one notification of ${DELIVERIES.toLocaleString('en')} deliveries (${relid}, ${size} with its indexes)`);
    out(`  statuses: ${counts.map((c: { status: string; n: number }) => `${c.status} ${c.n}`).join(', ')}; events: ${events}`);
    out(`  outcome updates heap-only: ${Number(after.hot) - Number(before.hot)} of ${Number(after.upd) - Number(before.upd)}`);
    out();
    out(`fan-out of ${DELIVERIES.toLocaleString('en')} installations: ${fanOutMs.toFixed(0)} ms, ${chunks} chunks of at most ${CHUNK}`);

    const base = { notificationId: traced, startedAt: started, scanLimit: TRACE_SCAN_ROWS };
    const cases: [string, TraceQuery][] = [
      ['first page, limit 100', { ...base, after: null, status: null, rows: 101 }],
      ['a page from the middle, limit 100', { ...base, after: middle, status: null, rows: 101 }],
      ['status=accepted, limit 100', { ...base, after: null, status: 'accepted', rows: 101 }],
      ['status=pending (1%), limit 100', { ...base, after: null, status: 'pending', rows: 101 }],
      [`status=failed (10 rows), limit 100: bounded scan of ${TRACE_SCAN_ROWS}`, { ...base, after: null, status: 'failed', rows: 101 }],
      ['status=failed, no bound (for comparison: what the bound avoids)', { ...base, after: null, status: 'failed', rows: 101, scanLimit: DELIVERIES * 2 }],
    ];
    for (const [label, q] of cases) {
      out();
      out(`== ${label}: median of 20 runs ${(await median(client, q, q.scanLimit > TRACE_SCAN_ROWS ? 5 : 20)).toFixed(2)} ms`);
      for (const line of await explain(client, q)) out(`  ${line}`);
    }
    out();
    const all = await walk(client, { ...base, status: null }, 1000);
    out(
      `walk, no status, limit 1000: ${all.pages} pages, ${all.entries} entries, ${all.totalMs.toFixed(0)} ms, slowest page ${all.slowestPageMs.toFixed(1)} ms`,
    );
    const failed = await walk(client, { ...base, status: 'failed' }, 100);
    out(
      `walk, status=failed, limit 100: ${failed.pages} pages, ${failed.entries} entries, ${failed.totalMs.toFixed(0)} ms, slowest page ${failed.slowestPageMs.toFixed(1)} ms`,
    );
  } finally {
    await client.end();
    await dropTestDatabase(name);
  }
}

main().catch((error) => {
  process.stderr.write(`${error?.stack ?? error}\n`);
  process.exit(1);
});
