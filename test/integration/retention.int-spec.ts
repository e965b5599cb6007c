import { DataSource } from 'typeorm';
import { parseEnv } from '../../src/config/env';
import { dataSourceOptions } from '../../src/database/data-source';
import { MIGRATIONS } from '../../src/database/migrations';
import { RECORD_OUTCOMES_SQL, recordOutcomesParams } from '../../src/delivery/deliver/deliveries.repository';
import { RetentionRepository } from '../../src/delivery/retention/retention.repository';
import { RetentionService } from '../../src/delivery/retention/retention.service';
import { useTestApp } from '../support/create-test-app';
import { newApp, TestTenant } from '../support/factories';
import { databaseUrl, withAdminClient } from '../support/services';
import { dropTestDatabase, testDatabaseName } from '../support/test-database';

const DAY = 24 * 60 * 60 * 1000;
const HOUR = 60 * 60 * 1000;

/**
 * Data lifecycle (docs/api.md#data-lifecycle): notifications completed more than RETENTION_DAYS ago go with
 * their deliveries and events, a week at a time (deliveries and events are partitioned by week of
 * the notification's start); unfinished and recently completed ones stay, and so does their week.
 * Runs are made "as of" later dates instead of waiting for them.
 */
describe('retention', () => {
  const ctx = useTestApp();
  let tenant: TestTenant;
  let installations: string[];
  /** Monday 00:00 UTC of the current week: the migration's first weekly partition begins there. */
  let monday: Date;

  const service = (retentionDays: number) =>
    new RetentionService(new RetentionRepository(ctx.db), parseEnv({ ...process.env, RETENTION_DAYS: String(retentionDays) }));
  const at = (ms: number) => new Date(monday.getTime() + ms);
  const partitions = async (table: string): Promise<string[]> =>
    (await ctx.db.query(`SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = $1::regclass ORDER BY 1`, [table])).map(
      (r: { relname: string }) => r.relname,
    );
  const week = (from: Date) => from.toISOString().slice(0, 10).replace(/-/g, '');

  /** A notification that started (and fanned out) at `startedAt`, with a delivery per installation and one event. */
  async function notification(startedAt: Date, completedAt: Date | null): Promise<string> {
    const [{ id }] = await ctx.db.query(
      `INSERT INTO notifications (app_id, title, body, user_ids, target_users, stat_users, stat_installations, stat_accepted,
         created_at, processing_started_at, fanned_out_at, completed_at)
       VALUES ($1, 't', 'b', '{u}', 1, 1, $4, $5, $2, $2, $2, $3) RETURNING id`,
      [tenant.appId, startedAt, completedAt, installations.length, completedAt ? installations.length : 0],
    );
    await ctx.db.query(
      `INSERT INTO deliveries (notification_id, installation_id, notification_started_at, platform, batch, status)
       SELECT $1, i, $2, 'ios', 0, CASE WHEN $3::boolean THEN 'accepted' ELSE 'pending' END FROM unnest($4::uuid[]) AS i`,
      [id, startedAt, completedAt !== null, installations],
    );
    await ctx.db.query(
      `INSERT INTO notification_events (notification_id, installation_id, type, notification_started_at, occurred_at) VALUES ($1, $2, 'opened', $3, $3)`,
      [id, installations[0], startedAt],
    );
    return id;
  }

  /** What is left of a notification: its row, its deliveries, its events. */
  const left = async (id: string) => {
    const [row] = await ctx.db.query(
      `SELECT (SELECT count(*) FROM notifications WHERE id = $1)::int AS notification,
         (SELECT count(*) FROM deliveries WHERE notification_id = $1)::int AS deliveries,
         (SELECT count(*) FROM notification_events WHERE notification_id = $1)::int AS events`,
      [id],
    );
    return row as { notification: number; deliveries: number; events: number };
  };
  const all = { notification: 1, deliveries: 3, events: 1 };
  const none = { notification: 0, deliveries: 0, events: 0 };

  let old: string;
  let unfinished: string;
  let expiredBesideUnfinished: string;
  let recent: string;
  let expiredBesideRecent: string;

  beforeAll(async () => {
    tenant = await newApp(ctx);
    installations = (
      await ctx.db.query(
        `INSERT INTO installations (app_id, installation_id, platform, push_token, user_id, permission, registered_at, last_seen_at)
         SELECT $1, 'retention-' || n, 'ios', md5(n::text), 'u', 'granted', now(), now() FROM generate_series(1, 3) AS n RETURNING id`,
        [tenant.appId],
      )
    ).map((r: { id: string }) => r.id);
    const [{ from }] = await ctx.db.query(`SELECT date_trunc('week', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS from`);
    monday = from;
  });

  it('creates the weeks ahead of the current one, for deliveries and events alike', async () => {
    expect(await partitions('deliveries')).toEqual([`deliveries_before_${week(monday)}`, `deliveries_p${week(monday)}`]);
    const report = await service(30).run(at(HOUR));
    const ahead = [at(7 * DAY), at(14 * DAY)].map(week);
    expect(report.partitionsCreated).toEqual([...ahead.map((w) => `deliveries_p${w}`), ...ahead.map((w) => `notification_events_p${w}`)]);
    expect(await partitions('deliveries')).toEqual([
      `deliveries_before_${week(monday)}`,
      ...[monday, at(7 * DAY), at(14 * DAY)].map((w) => `deliveries_p${week(w)}`),
    ]);
    expect(await partitions('notification_events')).toEqual([
      `notification_events_before_${week(monday)}`,
      ...[monday, at(7 * DAY), at(14 * DAY)].map((w) => `notification_events_p${week(w)}`),
    ]);
    // A second run finds them there.
    expect((await service(30).run(at(2 * HOUR))).partitionsCreated).toEqual([]);

    old = await notification(at(HOUR), at(2 * HOUR));
    unfinished = await notification(at(8 * DAY), null);
    expiredBesideUnfinished = await notification(at(8 * DAY), at(9 * DAY));
    recent = await notification(at(15 * DAY), at(23 * DAY));
    expiredBesideRecent = await notification(at(15 * DAY), at(15 * DAY + HOUR));
  });

  it("runs a batch's statements on its notification's partition alone", async () => {
    // EXPLAIN ANALYZE of the outcome statement (rolled back): the scans PostgreSQL ran, by partition.
    const runner = ctx.db.createQueryRunner();
    await runner.startTransaction();
    let plan;
    try {
      const [row] = await runner.query(
        `EXPLAIN (ANALYZE, FORMAT JSON) ${RECORD_OUTCOMES_SQL}`,
        recordOutcomesParams(
          installations.map((installationId) => ({
            notificationId: unfinished,
            notificationStartedAt: at(8 * DAY),
            installationId,
            outcome: { status: 'accepted', reason: null, nextAttemptAt: null },
          })),
        ),
      );
      plan = row['QUERY PLAN'][0].Plan;
    } finally {
      await runner.rollbackTransaction();
      await runner.release();
    }
    const scanned = new Set<string>();
    const walk = (node: { 'Relation Name'?: string; 'Actual Loops'?: number; Plans?: unknown[] }) => {
      if (node['Relation Name']?.startsWith('deliveries_') && (node['Actual Loops'] ?? 0) > 0) scanned.add(node['Relation Name']);
      for (const child of node.Plans ?? []) walk(child as typeof node);
    };
    walk(plan);
    expect([...scanned]).toEqual([`deliveries_p${week(at(7 * DAY))}`]);
  });

  it('keeps everything with RETENTION_DAYS=0, however old', async () => {
    const report = await service(0).run(at(400 * DAY));
    expect(report).toMatchObject({ weeksDropped: [], notificationsDeleted: 0, deliveriesDeleted: 0, eventsDeleted: 0 });
    for (const id of [old, unfinished, expiredBesideUnfinished, recent, expiredBesideRecent]) expect(await left(id)).toEqual(all);
    expect(await partitions('deliveries')).toContain(`deliveries_before_${week(monday)}`);
  });

  it('drops the weeks whose notifications all completed more than RETENTION_DAYS ago, with their deliveries and events', async () => {
    // As of 52 days after Monday, the cutoff is day 22: the weeks ending on days 0, 7, 14 and 21 are due.
    const report = await service(30).run(at(52 * DAY));
    expect(report.weeksDropped).toEqual([`deliveries_before_${week(monday)}`, `deliveries_p${week(monday)}`]);
    expect(await left(old)).toEqual(none);
    expect(await partitions('deliveries')).not.toContain(`deliveries_p${week(monday)}`);
    expect(await partitions('notification_events')).not.toContain(`notification_events_p${week(monday)}`);
    expect(await partitions('deliveries')).not.toContain(`deliveries_before_${week(monday)}`);
    // And the weeks ahead of that date exist.
    expect(await partitions('deliveries')).toEqual(expect.arrayContaining([49, 56, 63].map((d) => `deliveries_p${week(at(d * DAY))}`)));

    // The week of an unfinished notification stays with it; held for over a week, its expired
    // neighbours are deleted row by row.
    expect(await left(unfinished)).toEqual(all);
    expect(await left(expiredBesideUnfinished)).toEqual(none);
    // A notification completed after the cutoff stays, and keeps its week (it ended a day before the cutoff).
    expect(await left(recent)).toEqual(all);
    expect(await left(expiredBesideRecent)).toEqual(all);
    expect(report.weeksKept).toEqual([`deliveries_p${week(at(7 * DAY))}`, `deliveries_p${week(at(14 * DAY))}`]);
    expect(report.notificationsDeleted).toBe(2);
    // The dropped week's rows are the planner's estimate (0 before any ANALYZE); the 3 deleted row by row are counted.
    expect(report.deliveriesDeleted).toBeGreaterThanOrEqual(3);
  });

  it('drops a held week once its late notification has expired too', async () => {
    const report = await service(30).run(at(60 * DAY));
    expect(report.weeksDropped).toEqual([`deliveries_p${week(at(14 * DAY))}`]);
    expect(await left(recent)).toEqual(none);
    expect(await left(expiredBesideRecent)).toEqual(none);
    expect(await left(unfinished)).toEqual(all);
    expect(await partitions('deliveries')).toContain(`deliveries_p${week(at(7 * DAY))}`);
  });

  it('deletes the notifications of a week whose partitions a stopped run dropped', async () => {
    const orphan = await notification(at(49 * DAY + HOUR), at(49 * DAY + 2 * HOUR));
    // What a run leaves when it stops between the drop and the notifications' delete.
    await ctx.db.query(`DROP TABLE "deliveries_p${week(at(49 * DAY))}", "notification_events_p${week(at(49 * DAY))}"`);
    expect(await left(orphan)).toEqual({ notification: 1, deliveries: 0, events: 0 });
    const report = await service(30).run(at(90 * DAY));
    expect(report.notificationsDeleted).toBeGreaterThanOrEqual(1);
    expect(await left(orphan)).toEqual(none);
    expect(await left(unfinished)).toEqual(all);
  });

  it('deletes the Live Activity broadcasts that ended more than RETENTION_DAYS ago; pending ones stay, however old', async () => {
    const broadcast = (status: string, updatedAt: Date) =>
      ctx.db
        .query(
          `INSERT INTO live_activity_broadcasts (app_id, channel_id, event, content, priority, accepted_at, status, attempts, updated_at)
           VALUES ($1, 'retention-channel', 'update', '{}', 'normal', $3, $2, 1, $3) RETURNING id`,
          [tenant.appId, status, updatedAt],
        )
        .then(([row]: { id: string }[]) => row.id);
    const expired = [await broadcast('accepted', at(89 * DAY)), await broadcast('failed', at(89 * DAY))];
    const kept = [await broadcast('pending', at(10 * DAY)), await broadcast('accepted', at(91 * DAY)), await broadcast('failed', at(91 * DAY))];

    expect((await service(0).run(at(120 * DAY))).broadcastsDeleted).toBe(0);
    // As of day 120 the cutoff is day 90.
    const report = await service(30).run(at(120 * DAY));
    expect(report.broadcastsDeleted).toBe(2);
    const ids = (await ctx.db.query(`SELECT id FROM live_activity_broadcasts WHERE app_id = $1`, [tenant.appId])).map((r: { id: string }) => r.id);
    expect(ids.sort()).toEqual([...kept].sort());
    expect(ids).not.toEqual(expect.arrayContaining(expired.slice(0, 1)));
  });
});

/**
 * An existing install upgrading: the migration PartitionedDeliveries moves the rows of the plain
 * tables into the partitioned ones, each with its notification's start, and the service goes on
 * with them (an event recorded, a late retention run deletes the old week).
 */
describe('the migration to partitioned deliveries and events', () => {
  const name = testDatabaseName('retention_migration');
  const migrator = (migrations: typeof MIGRATIONS) => new DataSource({ ...dataSourceOptions(databaseUrl(name)), migrations, extra: { max: 1 } });
  let db: DataSource;
  const before = MIGRATIONS.findIndex((m) => m.name === 'PartitionedDeliveries1764200000000');

  beforeAll(async () => {
    await withAdminClient((client) => client.query(`CREATE DATABASE "${name}"`));
    db = migrator(MIGRATIONS.slice(0, before));
    await db.initialize();
    await db.runMigrations({ transaction: 'each' });
  });
  afterAll(async () => {
    await db?.destroy();
    await dropTestDatabase(name);
  });

  it('copies every row into the partition of its notification, and keeps them usable', async () => {
    expect(before).toBeGreaterThan(0);
    const [{ id: appId }] = await db.query(`INSERT INTO apps (name) VALUES ('old') RETURNING id`);
    const installations: string[] = (
      await db.query(
        `INSERT INTO installations (app_id, installation_id, platform, push_token, user_id, registered_at, last_seen_at)
         SELECT $1, 'old-' || n, 'ios', md5(n::text), 'u', now(), now() FROM generate_series(1, 2) AS n RETURNING id`,
        [appId],
      )
    ).map((r: { id: string }) => r.id);
    const insert = (started: string, completed: string | null) =>
      db
        .query(
          `INSERT INTO notifications (app_id, title, body, user_ids, target_users, created_at, processing_started_at, fanned_out_at, completed_at)
           VALUES ($1, 't', 'b', '{u}', 1, now() - ${started}, now() - ${started}, now() - ${started}, ${completed ? `now() - ${completed}` : 'NULL'}) RETURNING id`,
          [appId],
        )
        .then(([row]: { id: string }[]) => row.id);
    const old = await insert(`interval '60 days'`, `interval '59 days'`);
    const current = await insert(`interval '1 second'`, null);
    // Rows without processing_started_at (written by hand, or by an older version): started when created.
    const unstarted = await insert(`interval '2 days'`, `interval '1 day'`);
    await db.query(`UPDATE notifications SET processing_started_at = NULL WHERE id = $1`, [unstarted]);
    for (const id of [old, current, unstarted]) {
      await db.query(
        `INSERT INTO deliveries (notification_id, installation_id, platform, batch, status) SELECT $1, i, 'ios', 0, 'accepted' FROM unnest($2::uuid[]) AS i`,
        [id, installations],
      );
      await db.query(`INSERT INTO notification_events (notification_id, installation_id, type, occurred_at) VALUES ($1, $2, 'received', now())`, [
        id,
        installations[0],
      ]);
    }
    await db.destroy();

    db = migrator(MIGRATIONS);
    await db.initialize();
    await db.runMigrations({ transaction: 'each' });

    const rows = await db.query(
      `SELECT n.id, d.tableoid::regclass::text AS partition, d.notification_started_at = n.processing_started_at AS same_start
       FROM deliveries d JOIN notifications n ON n.id = d.notification_id ORDER BY n.created_at, d.installation_id`,
    );
    const [{ week }] = await db.query(`SELECT to_char(date_trunc('week', now() AT TIME ZONE 'UTC'), 'YYYYMMDD') AS week`);
    const partitionOf = (id: string) => [...new Set(rows.filter((r: { id: string }) => r.id === id).map((r: { partition: string }) => r.partition))];
    expect(rows).toHaveLength(6);
    expect(rows.every((r: { same_start: boolean }) => r.same_start)).toBe(true);
    expect(partitionOf(old)).toEqual([`deliveries_before_${week}`]);
    expect(partitionOf(current)).toEqual([`deliveries_p${week}`]);
    const events = await db.query(
      `SELECT e.notification_id, e.notification_started_at = n.processing_started_at AS same_start FROM notification_events e JOIN notifications n ON n.id = e.notification_id`,
    );
    expect(events).toHaveLength(3);
    expect(events.every((e: { same_start: boolean }) => e.same_start)).toBe(true);

    // Nothing is due yet: the copied rows lie in the partition that ends this Monday and in this
    // week's. Once the send still going is done and RETENTION_DAYS have passed, both go.
    const retention = new RetentionService(new RetentionRepository(db), parseEnv({ ...process.env, RETENTION_DAYS: '30' }));
    expect((await retention.run()).weeksDropped).toEqual([]);
    await db.query(`UPDATE notifications SET completed_at = now() WHERE id = $1`, [current]);
    // As of an hour after this week's end plus RETENTION_DAYS, whatever the day today: so late that
    // both are due, so early that next week's partition (created empty by the run above) is not.
    // (Now + 40 days dropped that one too from Friday to Sunday.)
    const day = 24 * 60 * 60 * 1000;
    const weekEnd = Date.parse(`${week.slice(0, 4)}-${week.slice(4, 6)}-${week.slice(6, 8)}T00:00:00Z`) + 7 * day;
    const report = await retention.run(new Date(weekEnd + 30 * day + 60 * 60 * 1000));
    expect(report.weeksDropped).toEqual([`deliveries_before_${week}`, `deliveries_p${week}`]);
    expect(await db.query(`SELECT count(*)::int AS n FROM deliveries`)).toEqual([{ n: 0 }]);
    expect(await db.query(`SELECT count(*)::int AS n FROM notifications`)).toEqual([{ n: 0 }]);
  });
});
