/**
 * What retention costs (docs/operations.md "Data retention"): in a scratch database, a week of
 * 1,000,000 old deliveries (1,000 notifications x 1,000 installations) and 100,000 events, plus a
 * recent week that keeps sending, then
 *
 *   1. the purge as the worker runs it (RetentionService: drop the week's partitions, delete its
 *      notifications), and
 *   2. the alternative without partitions: the same rows deleted by batched DELETEs.
 *
 * For each: the time; the locks taken (pg_locks sampled from a second connection, by relation and
 * mode, with how long each was seen); the longest a claim-like UPDATE of the recent week waited
 * while it ran (a third connection updating 100-row batches without pause); the size of the tables
 * (pg_total_relation_size over the partitions) before and after; the WAL written.
 *
 *   npx ts-node --transpile-only bench/scenarios/index.ts retention [--deliveries N]
 *   npx ts-node --transpile-only bench/scenarios/index.ts retention --migration [--deliveries N]
 *
 * With --migration it measures instead the upgrade of an install holding that many deliveries
 * (and a tenth as many events) in the plain tables: how long the migration PartitionedDeliveries
 * takes to copy them into the partitioned ones.
 *
 * Run it under `flock /work/wt/e2e.lock` on the shared machine. It prints a report and exits.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { parseEnv } from '../../src/config/env';
import { dataSourceOptions } from '../../src/database/data-source';
import { MIGRATIONS } from '../../src/database/migrations';
import { ownPartition } from '../../src/common/sql/own-partition';
import { RetentionRepository } from '../../src/delivery/retention/retention.repository';
import { RetentionService } from '../../src/delivery/retention/retention.service';
import { TEST_APP_KEY } from '../../test/support/processes';
import { databaseUrl, withAdminClient } from '../../test/support/services';
import { createTestDatabase, dropTestDatabase, testDatabaseName } from '../../test/support/test-database';
import { argValue } from '../lib/args';

// The configuration is validated as a whole, APP_KEY included, although nothing here decrypts.
process.env.APP_KEY ??= TEST_APP_KEY;

const DAY = 24 * 60 * 60 * 1000;
const DELIVERIES = argValue('--deliveries', 1_000_000);
const INSTALLATIONS = 1000;
const OLD_NOTIFICATIONS = Math.max(1, Math.round(DELIVERIES / INSTALLATIONS));
const RECENT_NOTIFICATIONS = Math.max(1, Math.round(OLD_NOTIFICATIONS / 10));
const DELETE_BATCH = 10_000;

const log = (line: string) => process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${line}\n`);
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

interface LockSeen {
  relation: string;
  mode: string;
  granted: boolean;
  firstMs: number;
  lastMs: number;
  samples: number;
}

/** Samples pg_locks of every other backend of the database until stopped. */
function sampleLocks(url: string, ignorePids: number[]) {
  const seen = new Map<string, LockSeen>();
  let running = true;
  let samples = 0;
  const client = new Client({ connectionString: url });
  const started = Date.now();
  const done = (async () => {
    await client.connect();
    while (running) {
      const { rows } = await client.query(
        `SELECT coalesce(c.relname, l.relation::text) AS relation, l.mode, l.granted
         FROM pg_locks l LEFT JOIN pg_class c ON c.oid = l.relation
         WHERE l.locktype = 'relation' AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
           AND l.pid <> pg_backend_pid() AND NOT (l.pid = ANY($1::int[]))
           AND coalesce(c.relname, '') NOT LIKE 'pg\\_%'`,
        [ignorePids],
      );
      const now = Date.now() - started;
      samples++;
      for (const r of rows) {
        const key = `${r.relation}/${r.mode}/${r.granted}`;
        const entry = seen.get(key);
        if (entry) {
          entry.lastMs = now;
          entry.samples++;
        } else seen.set(key, { relation: r.relation, mode: r.mode, granted: r.granted, firstMs: now, lastMs: now, samples: 1 });
      }
    }
    await client.end();
  })();
  return {
    async stop() {
      running = false;
      await done;
      return { locks: [...seen.values()], samples, ms: Date.now() - started };
    },
  };
}

/** Claim-like updates of the recent week, one after the other; the longest one is what a send felt. */
function probeHotPath(client: Client, notificationIds: string[]) {
  let running = true;
  const latencies: number[] = [];
  const done = (async () => {
    let n = 0;
    while (running) {
      const id = notificationIds[n % notificationIds.length];
      const batch = Math.floor(n / notificationIds.length) % 10;
      const started = process.hrtime.bigint();
      await client.query(
        `UPDATE deliveries d SET attempts = d.attempts + 1, updated_at = now()
         WHERE d.notification_id = $1 AND ${ownPartition('d', '$1')} AND d.batch = $2`,
        [id, batch],
      );
      latencies.push(Number(process.hrtime.bigint() - started) / 1e6);
      n++;
    }
  })();
  return {
    async stop() {
      running = false;
      await done;
      const sorted = [...latencies].sort((a, b) => a - b);
      return {
        statements: sorted.length,
        p50: sorted[Math.floor(sorted.length / 2)] ?? 0,
        max: sorted[sorted.length - 1] ?? 0,
      };
    },
  };
}

async function sizes(client: Client) {
  const { rows } = await client.query(
    `SELECT p.relname AS parent, coalesce(sum(pg_total_relation_size(i.inhrelid)), 0)::bigint AS bytes, count(i.inhrelid)::int AS partitions
     FROM pg_class p LEFT JOIN pg_inherits i ON i.inhparent = p.oid
     WHERE p.relname IN ('deliveries', 'notification_events') GROUP BY p.relname ORDER BY 1`,
  );
  const [{ bytes: notifications }] = (await client.query(`SELECT pg_total_relation_size('notifications')::bigint AS bytes`)).rows;
  const [{ rows: deliveries }] = (await client.query(`SELECT count(*)::int AS rows FROM deliveries`)).rows;
  return {
    deliveries: Number(rows.find((r) => r.parent === 'deliveries').bytes),
    events: Number(rows.find((r) => r.parent === 'notification_events').bytes),
    notifications: Number(notifications),
    deliveryRows: deliveries,
    partitions: rows.find((r) => r.parent === 'deliveries').partitions as number,
  };
}

async function wal(client: Client): Promise<string> {
  return (await client.query(`SELECT pg_current_wal_lsn()::text AS lsn`)).rows[0].lsn;
}
async function walSince(client: Client, lsn: string): Promise<number> {
  return Number((await client.query(`SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), $1)::bigint AS bytes`, [lsn])).rows[0].bytes);
}

/** The old week: OLD_NOTIFICATIONS x INSTALLATIONS deliveries and a tenth as many events, completed. */
async function seedOldWeek(client: Client, appId: string, startedAt: Date): Promise<void> {
  await client.query(
    `WITH n AS (
       INSERT INTO notifications (app_id, title, body, user_ids, target_users, stat_users, stat_installations, stat_accepted,
         created_at, processing_started_at, fanned_out_at, completed_at)
       SELECT $1, 'old', 'old', '{u}', 1, 1, $3, $3, $2, $2, $2, $2::timestamptz + interval '1 minute' FROM generate_series(1, $4)
       RETURNING id)
     INSERT INTO deliveries (notification_id, installation_id, notification_started_at, platform, batch, status, attempts)
     SELECT n.id, i.id, $2, 'ios', 0, 'accepted', 1 FROM n CROSS JOIN installations i WHERE i.app_id = $1`,
    [appId, startedAt, INSTALLATIONS, OLD_NOTIFICATIONS],
  );
  await client.query(
    `INSERT INTO notification_events (notification_id, installation_id, type, notification_started_at, occurred_at)
     SELECT d.notification_id, d.installation_id, 'received', $2, $2 FROM deliveries d
     WHERE d.notification_started_at = $2 AND d.notification_id IN (SELECT id FROM notifications WHERE title = 'old' AND app_id = $1)
       AND abs(hashtext(d.installation_id::text)) % 10 = 0`,
    [appId, startedAt],
  );
}

async function main() {
  const name = testDatabaseName('bench_retention');
  log(`scratch database ${name}; ${DELIVERIES} old deliveries (${OLD_NOTIFICATIONS} notifications x ${INSTALLATIONS} installations)`);
  const { url } = await createTestDatabase(name);
  const db = new DataSource({ ...dataSourceOptions(url), extra: { max: 2 } });
  await db.initialize();
  const admin = new Client({ connectionString: url });
  const hot = new Client({ connectionString: url });
  await admin.connect();
  await hot.connect();
  const result: Record<string, unknown> = { deliveries: DELIVERIES, oldNotifications: OLD_NOTIFICATIONS, installations: INSTALLATIONS };
  try {
    const [{ id: appId }] = (await admin.query(`INSERT INTO apps (name) VALUES ('bench') RETURNING id`)).rows;
    await admin.query(
      `INSERT INTO installations (app_id, installation_id, platform, push_token, user_id, permission, registered_at, last_seen_at)
       SELECT $1, 'i-' || n, 'ios', md5(n::text), 'u', 'granted', now(), now() FROM generate_series(1, $2) AS n`,
      [appId, INSTALLATIONS],
    );
    const [{ monday }] = (await admin.query(`SELECT date_trunc('week', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS monday`)).rows;
    const at = (ms: number) => new Date(monday.getTime() + ms);
    // The worker's run as of now creates the weeks ahead; the recent week is next week's.
    const keepAll = new RetentionService(new RetentionRepository(db), parseEnv({ ...process.env, RETENTION_DAYS: '0' }));
    await keepAll.run(at(DAY));
    const recentStart = at(8 * DAY);
    const recent: string[] = (
      await admin.query(
        `WITH n AS (
           INSERT INTO notifications (app_id, title, body, user_ids, target_users, stat_users, stat_installations, created_at, processing_started_at, fanned_out_at)
           SELECT $1, 'recent', 'recent', '{u}', 1, 1, $3, $2, $2, $2 FROM generate_series(1, $4) RETURNING id),
         d AS (
           INSERT INTO deliveries (notification_id, installation_id, notification_started_at, platform, batch, status)
           SELECT n.id, i.id, $2, 'ios', (row_number() OVER (PARTITION BY n.id ORDER BY i.id) - 1) / 100, 'pending'
           FROM n CROSS JOIN installations i WHERE i.app_id = $1)
         SELECT id FROM n`,
        [appId, recentStart, INSTALLATIONS, RECENT_NOTIFICATIONS],
      )
    ).rows.map((r) => r.id);

    // As of 38 days after Monday, with RETENTION_DAYS=30, the current week is due and the recent one is not.
    const asOf = at(38 * DAY);
    await keepAll.run(asOf); // its weeks ahead, so that the measured run only purges
    const retention = new RetentionService(new RetentionRepository(db), parseEnv({ ...process.env, RETENTION_DAYS: '30' }));
    const hotPid = (await hot.query(`SELECT pg_backend_pid() AS pid`)).rows[0].pid;
    const adminPid = (await admin.query(`SELECT pg_backend_pid() AS pid`)).rows[0].pid;

    async function measure(label: string, purge: () => Promise<unknown>) {
      await admin.query(`VACUUM ANALYZE`);
      await admin.query(`CHECKPOINT`);
      const before = await sizes(admin);
      log(`${label}: before ${JSON.stringify(before)}`);
      const baseline = probeHotPath(hot, recent);
      await new Promise((r) => setTimeout(r, 2000));
      const quiet = await baseline.stop();
      const lsn = await wal(admin);
      const locks = sampleLocks(url, [hotPid, adminPid]);
      const probe = probeHotPath(hot, recent);
      await new Promise((r) => setTimeout(r, 200));
      const started = process.hrtime.bigint();
      const outcome = await purge();
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      await new Promise((r) => setTimeout(r, 200));
      const during = await probe.stop();
      const sampled = await locks.stop();
      const walBytes = await walSince(admin, lsn);
      const after = await sizes(admin);
      await admin.query(`VACUUM deliveries, notification_events`);
      const afterVacuum = await sizes(admin);
      const entry = {
        ms,
        outcome,
        before,
        after,
        afterVacuum,
        walBytes,
        hotPathQuiet: quiet,
        hotPathDuring: during,
        lockSamples: sampled.samples,
        locks: sampled.locks,
      };
      result[label] = entry;
      log(`${label}: ${ms.toFixed(0)} ms, WAL ${mb(walBytes)}, after ${JSON.stringify(after)}`);
      return entry;
    }

    log('seeding the old week');
    await seedOldWeek(admin, appId, at(60 * 60 * 1000));
    const drop = await measure('partitionDrop', () => retention.run(asOf));

    // The same rows again, deleted the way a table without partitions would have to.
    log('seeding the old week again for the batched DELETE');
    await keepAll.run(at(DAY)); // the week's partition again
    await seedOldWeek(admin, appId, at(60 * 60 * 1000));
    const batched = await measure('batchedDelete', async () => {
      let statements = 0;
      let rows = 0;
      for (;;) {
        // ctid is per partition: both sides name the old week, so they read the same one.
        const [, rowCount]: [unknown, number] = await db.query(
          `DELETE FROM deliveries WHERE notification_started_at < $1 AND ctid = ANY (ARRAY(
             SELECT d.ctid FROM deliveries d JOIN notifications n ON n.id = d.notification_id
             WHERE d.notification_started_at < $1 AND n.completed_at < $2 LIMIT ${DELETE_BATCH}))`,
          [at(7 * DAY), at(8 * DAY)],
        );
        statements++;
        rows += rowCount;
        if (!rowCount) break;
      }
      await db.query(`DELETE FROM notification_events WHERE notification_started_at < $1`, [at(7 * DAY)]);
      await db.query(`DELETE FROM notifications WHERE title = 'old'`);
      return { statements, rows };
    });

    printReport(drop, batched);
    const out = resultFile();
    writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`);
    process.stdout.write(`\nEvery figure, and each lock by relation: ${out}\n`);
  } finally {
    await hot.end();
    await admin.end();
    await db.destroy();
    await dropTestDatabase(name);
  }
}

type Entry = {
  ms: number;
  before: Awaited<ReturnType<typeof sizes>>;
  after: Awaited<ReturnType<typeof sizes>>;
  afterVacuum: Awaited<ReturnType<typeof sizes>>;
  walBytes: number;
  hotPathQuiet: { p50: number; max: number; statements: number };
  hotPathDuring: { p50: number; max: number; statements: number };
  locks: LockSeen[];
  lockSamples: number;
};

function printReport(drop: Entry, batched: Entry) {
  const line = (label: string, e: Entry) =>
    `${label.padEnd(16)} ${(e.ms / 1000).toFixed(2).padStart(7)} s  deliveries ${mb(e.before.deliveries)} -> ${mb(e.after.deliveries)} (after VACUUM ${mb(e.afterVacuum.deliveries)})` +
    `  events ${mb(e.before.events)} -> ${mb(e.after.events)}  WAL ${mb(e.walBytes)}` +
    `  claim-like UPDATE p50 ${e.hotPathQuiet.p50.toFixed(2)} -> ${e.hotPathDuring.p50.toFixed(2)} ms, max ${e.hotPathQuiet.max.toFixed(1)} -> ${e.hotPathDuring.max.toFixed(1)} ms`;
  process.stdout.write(`\nRetention: purge of ${DELIVERIES} deliveries (${OLD_NOTIFICATIONS} notifications)\n`);
  process.stdout.write(`${line('partition drop', drop)}\n${line('batched DELETE', batched)}\n`);
  for (const [label, e] of [
    ['partition drop', drop],
    ['batched DELETE', batched],
  ] as const) {
    process.stdout.write(
      `\nLocks seen during the ${label} (${e.lockSamples} samples of pg_locks; partitions as <table>_p*, indexes left out):` +
        `\n  relation                          mode                     granted  first..last seen (ms from start)\n`,
    );
    const grouped = new Map<string, LockSeen & { relations: number }>();
    for (const l of e.locks) {
      if (/_(pkey|idx)$/.test(l.relation)) continue;
      const relation = l.relation.replace(/_(p|before_)\d{8}$/, '_p*');
      const key = `${relation}/${l.mode}/${l.granted}`;
      const g = grouped.get(key);
      if (g) {
        g.firstMs = Math.min(g.firstMs, l.firstMs);
        g.lastMs = Math.max(g.lastMs, l.lastMs);
        g.relations++;
      } else grouped.set(key, { ...l, relation, relations: 1 });
    }
    for (const l of [...grouped.values()].sort((a, b) => a.firstMs - b.firstMs || a.relation.localeCompare(b.relation))) {
      const name = l.relations > 1 ? `${l.relation} (${l.relations})` : l.relation;
      process.stdout.write(`  ${name.padEnd(33)} ${l.mode.padEnd(24)} ${String(l.granted).padEnd(8)} ${l.firstMs}..${l.lastMs}\n`);
    }
  }
}

/** bench/results/<date>-<commit>-retention.json, never overwriting an earlier run's. */
function resultFile(): string {
  const date = new Date().toISOString().slice(0, 10);
  let commit = 'unknown';
  try {
    commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
  } catch {
    // not a checkout
  }
  const base = join(__dirname, '..', 'results', `${date}-${commit}-retention${DELIVERIES === 1_000_000 ? '' : `-${DELIVERIES}`}`);
  for (let n = 1; ; n++) {
    const file = n === 1 ? `${base}.json` : `${base}-${n}.json`;
    if (!existsSync(file)) return file;
  }
}

/** The upgrade of an install with DELIVERIES rows: the migration's time, and the tables before and after. */
async function migration() {
  const name = testDatabaseName('bench_retention_migration');
  const url = databaseUrl(name);
  const last = MIGRATIONS.findIndex((m) => m.name === 'PartitionedDeliveries1764200000000');
  await withAdminClient((client) => client.query(`CREATE DATABASE "${name}"`));
  const migrate = async (migrations: typeof MIGRATIONS) => {
    const db = new DataSource({ ...dataSourceOptions(url), migrations, extra: { max: 1 } });
    await db.initialize();
    try {
      await db.runMigrations({ transaction: 'each' });
    } finally {
      await db.destroy();
    }
  };
  const admin = new Client({ connectionString: url });
  try {
    await migrate(MIGRATIONS.slice(0, last));
    await admin.connect();
    log(`seeding ${DELIVERIES} deliveries in the plain tables`);
    const [{ id: appId }] = (await admin.query(`INSERT INTO apps (name) VALUES ('bench') RETURNING id`)).rows;
    await admin.query(
      `INSERT INTO installations (app_id, installation_id, platform, push_token, user_id, permission, registered_at, last_seen_at)
       SELECT $1, 'i-' || n, 'ios', md5(n::text), 'u', 'granted', now(), now() FROM generate_series(1, $2) AS n`,
      [appId, INSTALLATIONS],
    );
    await admin.query(
      `WITH n AS (
         INSERT INTO notifications (app_id, title, body, user_ids, target_users, created_at, processing_started_at, fanned_out_at, completed_at)
         SELECT $1, 'old', 'old', '{u}', 1, now() - g * interval '1 hour', now() - g * interval '1 hour', now() - g * interval '1 hour', now() - g * interval '1 hour'
         FROM generate_series(1, $2) AS g RETURNING id)
       INSERT INTO deliveries (notification_id, installation_id, platform, batch, status)
       SELECT n.id, i.id, 'ios', 0, 'accepted' FROM n CROSS JOIN installations i WHERE i.app_id = $1`,
      [appId, OLD_NOTIFICATIONS],
    );
    await admin.query(
      `INSERT INTO notification_events (notification_id, installation_id, type, occurred_at)
       SELECT notification_id, installation_id, 'received', now() FROM deliveries WHERE abs(hashtext(installation_id::text)) % 10 = 0`,
    );
    await admin.query(`VACUUM ANALYZE`);
    const size = async () =>
      Number(
        (
          await admin.query(
            `SELECT sum(pg_total_relation_size(c.oid))::bigint AS bytes FROM pg_class c
             WHERE c.relkind = 'r' AND (c.relname LIKE 'deliveries%' OR c.relname LIKE 'notification_events%')`,
          )
        ).rows[0].bytes,
      );
    const before = await size();
    const started = process.hrtime.bigint();
    await migrate(MIGRATIONS);
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    const after = await size();
    process.stdout.write(
      `\nMigration PartitionedDeliveries over ${DELIVERIES} deliveries (${OLD_NOTIFICATIONS} notifications) and their events:\n` +
        `  ${(ms / 1000).toFixed(1)} s; deliveries and events ${mb(before)} before, ${mb(after)} after\n`,
    );
  } finally {
    await admin.end().catch(() => undefined);
    await dropTestDatabase(name);
  }
}

(process.argv.includes('--migration') ? migration() : main()).catch((error) => {
  process.stderr.write(`${error.stack ?? error}\n`);
  process.exit(1);
});
