import { Client } from 'pg';
import { serviceEnv, ServiceProcess } from '../support/processes';
import { useBuiltServices } from '../support/use-built-services';

/**
 * Data lifecycle (docs/api.md#data-lifecycle) as an operator runs it: nobody calls anything, the built worker
 * runs retention itself at start-up (then hourly) and says what it did. Which weeks are dropped
 * depends on the calendar, so the dropping rules are tested "as of" chosen dates in
 * test/integration/retention.int-spec.ts; here the run's visible part is creating the weeks ahead.
 */
describe('retention run by the worker', () => {
  const stores = useBuiltServices();
  let db: Client;

  beforeAll(async () => {
    db = new Client({ connectionString: stores.database.url });
    // useBuiltServices' afterAll (declared first, so run first) drops the database under it.
    db.on('error', () => undefined);
    await db.connect();
  });

  const partitions = async (table: string): Promise<string[]> =>
    (
      await db.query<{ relname: string }>(
        `SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = $1::regclass ORDER BY 1`,
        [table],
      )
    ).rows.map((r) => r.relname);

  /** A completed notification that started at `startedAt`, with one delivery and one event. */
  async function completedNotification(appId: string, installation: string, startedAt: Date): Promise<string> {
    const completedAt = new Date(startedAt.getTime() + 60_000);
    const {
      rows: [{ id }],
    } = await db.query<{ id: string }>(
      `INSERT INTO notifications (app_id, title, body, user_ids, target_users, stat_users, stat_installations, stat_accepted,
         created_at, processing_started_at, fanned_out_at, completed_at)
       VALUES ($1, 't', 'b', '{u}', 1, 1, 1, 1, $2, $2, $2, $3) RETURNING id`,
      [appId, startedAt, completedAt],
    );
    await db.query(
      `INSERT INTO deliveries (notification_id, installation_id, notification_started_at, platform, batch, status)
       VALUES ($1, $2, $3, 'ios', 0, 'accepted')`,
      [id, installation, startedAt],
    );
    await db.query(
      `INSERT INTO notification_events (notification_id, installation_id, type, notification_started_at, occurred_at)
       VALUES ($1, $2, 'opened', $3, $3)`,
      [id, installation, startedAt],
    );
    return id;
  }

  const rowsOf = async (id: string) =>
    (
      await db.query<{ notification: number; deliveries: number; events: number }>(
        `SELECT (SELECT count(*) FROM notifications WHERE id = $1)::int AS notification,
           (SELECT count(*) FROM deliveries WHERE notification_id = $1)::int AS deliveries,
           (SELECT count(*) FROM notification_events WHERE notification_id = $1)::int AS events`,
        [id],
      )
    ).rows[0];

  it('runs at start-up by itself: creates the weeks ahead, logs each as JSON, keeps what is not expired', async () => {
    const {
      rows: [{ id: appId }],
    } = await db.query<{ id: string }>(`INSERT INTO apps (name) VALUES ('Retention') RETURNING id`);
    const {
      rows: [{ id: installation }],
    } = await db.query<{ id: string }>(
      `INSERT INTO installations (app_id, installation_id, platform, registered_at, last_seen_at)
       VALUES ($1, 'inst-1', 'ios', now(), now()) RETURNING id`,
      [appId],
    );
    const recent = await completedNotification(appId, installation, new Date());
    // The migration made the week it ran in (and one for everything before); the worker owes the
    // two weeks ahead, so that fan-outs never meet a week without a partition.
    const before = await partitions('deliveries');
    expect(before).toHaveLength(2);

    const worker = ServiceProcess.start(
      serviceEnv({ databaseUrl: stores.database.url, queuePrefix: stores.queuePrefix }, { APP_MODE: 'worker', RETENTION_DAYS: '7', LOG_LEVEL: 'info' }),
    );
    await worker.waitForOutput(/Retention: created partition notification_events_p\d+[\s\S]*Retention: created partition notification_events_p\d+/, 60_000);

    const after = await partitions('deliveries');
    expect(after).toHaveLength(4);
    expect(after).toEqual(expect.arrayContaining(before));
    expect(await partitions('notification_events')).toHaveLength(4);
    // One JSON line per partition created, like every production log line.
    const created = worker.stdout.split('\n').filter((line) => line.includes('Retention: created partition'));
    expect(created).toHaveLength(4);
    for (const line of created) expect(JSON.parse(line)).toMatchObject({ level: 30, context: 'RetentionService' });
    // A week-old completion is within RETENTION_DAYS=7: nothing of it goes.
    expect(await rowsOf(recent)).toEqual({ notification: 1, deliveries: 1, events: 1 });
    await worker.stop();
  }, 90_000);
});
