import { completionCondition } from '../../src/common/completion-condition';
import { CLAIM_SQL, claimParams, plainArray, RECORD_OUTCOMES_SQL, recordOutcomesParams } from '../../src/delivery/deliver/deliveries.repository';
import { SweeperService } from '../../src/delivery/sweeper/sweeper.service';
import { apnsToken, bearer, newInstallation } from '../support/factories';
import { useAppWithFakeProviders } from '../support/use-app-with-fake-providers';
import { useTenantWithProviders } from '../support/use-tenant-with-providers';
import { waitFor } from '../support/wait-for';

/**
 * What the sweeper owes a send whose worker died (docs/api.md#delivery): rows it left "sending" longer than
 * DELIVERY_STUCK_MS, and pending rows whose job was lost, are delivered by the next sweep; rows
 * still within that time are left to their worker. And what keeps a delivery's two status updates
 * cheap however big the send: no index on what they change, and outcomes recorded by reading
 * their own rows only.
 */
describe('the sweeper and the deliveries table', () => {
  const stack = useAppWithFakeProviders({ DELIVERY_STUCK_MS: '2000' });
  const { ctx } = stack;
  const tenant = useTenantWithProviders(stack);

  const completedAt = async (id: string) => (await ctx.db.query(`SELECT completed_at FROM notifications WHERE id = $1`, [id]))[0].completed_at as Date | null;

  /** A send to a user with no installation, run to completion: a started notification for rows written by hand. */
  async function completedEmptySend(title: string): Promise<string> {
    const res = await ctx
      .http()
      .post('/api/v1/notifications')
      .set(bearer(tenant.token))
      .send({ recipients: { user_ids: ['nobody-here'] }, notification: { title, body: 'Send' } })
      .expect(202);
    const id: string = res.body.data.id;
    await waitFor(() => completedAt(id), 'the empty send to complete');
    return id;
  }

  /** Three iOS installations of one user, one send to them, run to completion. */
  async function completedSend(user: string) {
    const installations = [];
    for (let n = 0; n < 3; n++) installations.push(await newInstallation(ctx, tenant.token, { push_token: apnsToken(), user_id: user }));
    const res = await ctx
      .http()
      .post('/api/v1/notifications')
      .set(bearer(tenant.token))
      .send({ recipients: { user_ids: [user] }, notification: { title: 'Swept', body: 'Once more' } })
      .expect(202);
    const id: string = res.body.data.id;
    await waitFor(() => completedAt(id), 'the first delivery');
    const tokens: string[] = [];
    for (const installation of installations) {
      tokens.push((await ctx.db.query(`SELECT push_token FROM installations WHERE id = $1`, [installation.id]))[0].push_token);
    }
    return { id, installations, tokens };
  }

  const sentTo = (token: string) => stack.fakes.apns.requests.filter((r) => r.token === token && r.status === 200).length;

  it('delivers rows a dead worker left "sending" and pending rows whose job was lost', async () => {
    const { id, installations, tokens } = await completedSend('swept-user');
    // What a worker that died mid-batch leaves behind: one row claimed ("sending") and one not yet
    // claimed, both untouched for an hour, not counted, and the notification not complete.
    await ctx.db.query(
      `UPDATE deliveries SET status = CASE installation_id WHEN $2 THEN 'sending' ELSE 'pending' END,
         updated_at = now() - interval '1 hour'
       WHERE notification_id = $1 AND installation_id IN ($2, $3)`,
      [id, installations[0].id, installations[1].id],
    );
    await ctx.db.query(`UPDATE notifications SET stat_accepted = stat_accepted - 2, completed_at = NULL WHERE id = $1`, [id]);
    // The sweeper looks at it once it began more than DELIVERY_STUCK_MS (2 s) ago. (Its start is
    // left as it is: its rows carry it as their partition key, delivery.entity.ts.)

    await waitFor(() => completedAt(id), 'the sweeper to finish the send', 20_000, 100);
    const [n] = await ctx.db.query(`SELECT stat_installations, stat_accepted, stat_failed, stat_skipped FROM notifications WHERE id = $1`, [id]);
    expect(n).toEqual({ stat_installations: 3, stat_accepted: 3, stat_failed: 0, stat_skipped: 0 });
    expect(tokens.map(sentTo)).toEqual([2, 2, 1]);
  });

  it('leaves a row that is "sending" for less than DELIVERY_STUCK_MS to its worker', async () => {
    const { id, installations } = await completedSend('busy-user');
    // A worker is sending this one right now (updated_at keeps being now()).
    const claim = () =>
      ctx.db.query(`UPDATE deliveries SET status = 'sending', updated_at = now() WHERE notification_id = $1 AND installation_id = $2`, [
        id,
        installations[0].id,
      ]);
    await claim();
    await ctx.db.query(`UPDATE notifications SET stat_accepted = stat_accepted - 1, completed_at = NULL WHERE id = $1`, [id]);
    // The "worker" keeps the row fresh until the send began longer than DELIVERY_STUCK_MS ago: from
    // then on only the row's own age can tell it is alive. Then sweeps, run here, so they surely run.
    await waitFor(async () => {
      await claim();
      const [{ old }] = await ctx.db.query(`SELECT processing_started_at < now() - interval '2 seconds' AS old FROM notifications WHERE id = $1`, [id]);
      return old as boolean;
    }, 'the send to have begun more than DELIVERY_STUCK_MS ago');
    for (let i = 0; i < 3; i++) {
      await claim();
      await ctx.get(SweeperService).sweep();
    }
    const [row] = await ctx.db.query(`SELECT status FROM deliveries WHERE notification_id = $1 AND installation_id = $2`, [id, installations[0].id]);
    expect(row.status).toBe('sending');
    expect(await completedAt(id)).toBeNull();
  });

  it('fans out without locking the installations it reads (no per-row key check: migration DeliveriesWithoutInstallationKey)', async () => {
    const { installations } = await completedSend('not-locked');
    // A foreign-key check takes FOR KEY SHARE on each installation, which writes the locker into
    // the tuple's xmax (and the page and WAL); a plain read leaves xmax at 0.
    const rows: { xmax: string }[] = await ctx.db.query(`SELECT xmax::text FROM installations WHERE id = ANY($1::uuid[])`, [
      installations.map((installation) => installation.id),
    ]);
    expect(rows.map((row) => row.xmax)).toEqual(['0', '0', '0']);
    // The deliveries are still deleted with their notification, which an app's deletion reaches.
    const [{ count }] = await ctx.db.query(`SELECT count(*)::int AS count FROM deliveries WHERE installation_id = ANY($1::uuid[])`, [
      installations.map((installation) => installation.id),
    ]);
    expect(count).toBe(3);
  });

  it('keeps the columns a delivery updates out of every index, so its updates stay on the page (HOT)', async () => {
    const indexes: { indexdef: string }[] = await ctx.db.query(`SELECT indexdef FROM pg_indexes WHERE tablename = 'deliveries'`);
    expect(indexes.length).toBeGreaterThan(0);
    for (const { indexdef } of indexes) expect(indexdef).not.toMatch(/status|updated_at|reason|attempts|next_attempt_at/);
    // The table is partitioned by week (migration PartitionedDeliveries): each partition has the fillfactor.
    const partitions: { reloptions: string[] | null }[] = await ctx.db.query(
      `SELECT c.reloptions FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = 'deliveries'::regclass`,
    );
    expect(partitions.length).toBeGreaterThan(0);
    for (const { reloptions } of partitions) expect(reloptions).toContain('fillfactor=50');

    // And PostgreSQL agrees: the sends above updated their rows in place.
    const stats = await waitFor(
      async () => {
        await ctx.db.query('SELECT pg_stat_clear_snapshot()');
        const [s] = await ctx.db.query(
          `SELECT sum(n_tup_upd)::int AS updated, sum(n_tup_hot_upd)::int AS hot FROM pg_stat_user_tables
         WHERE relid IN (SELECT inhrelid FROM pg_inherits WHERE inhparent = 'deliveries'::regclass)`,
        );
        return s.updated >= 12 ? s : null;
      },
      'the table statistics to arrive',
      10_000,
      200,
    );
    expect(stats.hot / stats.updated).toBeGreaterThan(0.9);
  });

  // Statistics taken while the rows were pending (autovacuum analyzes a partition soon after a big
  // fan-out) make "sending" look rare: a plan that trusts them scanned the whole partition once per
  // outcome (seen in the bench: 550,000 rows compared for 138 outcomes).
  it.each([
    ['before the table has statistics', 'a', false],
    ['with statistics taken while its rows were pending', 'b', true],
  ])('records outcomes reading only their own rows (the plan a worker keeps), %s, and counts each row once', async (_, prefix, analyzed) => {
    const rows = 8000;
    const written = 150;
    const id = await completedEmptySend('Big');
    // A big send in the middle of its delivery: every row claimed ("sending"), no ANALYZE yet.
    await ctx.db.query(
      `INSERT INTO installations (app_id, installation_id, platform, push_token, user_id, permission, registered_at, last_seen_at)
       SELECT $1, $3 || '-big-' || n, 'ios', md5(n::text) || md5(n::text), $3 || '-big-user', 'granted', now(), now() FROM generate_series(1, $2) AS n`,
      [tenant.appId, rows, prefix],
    );
    await ctx.db.query(
      `INSERT INTO deliveries (notification_id, installation_id, notification_started_at, platform, batch, status)
       SELECT $1, i.id, (SELECT processing_started_at FROM notifications WHERE id = $1), 'ios', (row_number() OVER (ORDER BY i.id) - 1) / 500, $3
       FROM installations i WHERE i.app_id = $2 AND i.user_id = $4 || '-big-user'`,
      [id, tenant.appId, analyzed ? 'pending' : 'sending', prefix],
    );
    if (analyzed) {
      await ctx.db.query(`ANALYZE deliveries`);
      await ctx.db.query(`UPDATE deliveries SET status = 'sending' WHERE notification_id = $1`, [id]);
    }
    await ctx.db.query(`UPDATE notifications SET stat_installations = $2, completed_at = NULL WHERE id = $1`, [id, rows]);
    // Part of one batch answered: two outcomes of each kind, one refused token, the rest accepted.
    const ids: string[] = (
      await ctx.db.query(`SELECT installation_id FROM deliveries WHERE notification_id = $1 AND batch = 3 ORDER BY installation_id LIMIT $2`, [id, written])
    ).map((r: { installation_id: string }) => r.installation_id);
    const [{ push_token: refused }] = await ctx.db.query(`SELECT push_token FROM installations WHERE id = $1`, [ids[0]]);
    const [{ started }] = await ctx.db.query(`SELECT processing_started_at AS started FROM notifications WHERE id = $1`, [id]);
    const params = recordOutcomesParams(
      ids.map((installationId, n) => ({
        notificationId: id,
        notificationStartedAt: started,
        installationId,
        outcome:
          n < 2
            ? { status: 'failed', reason: 'BadDeviceToken', nextAttemptAt: null }
            : n < 4
              ? { status: 'skipped', reason: 'Deleted', nextAttemptAt: null }
              : n < 6
                ? { status: 'pending', reason: 'ServiceUnavailable', nextAttemptAt: new Date(Date.now() + 60_000) }
                : { status: 'accepted', reason: null, nextAttemptAt: null },
        invalidation: n === 0 ? { installationId, reason: 'BadDeviceToken', token: refused } : undefined,
      })),
    );

    const runner = ctx.db.createQueryRunner();
    await runner.startTransaction();
    try {
      // The worker runs the statement prepared, and after five runs PostgreSQL keeps its generic
      // plan, made without the lists' sizes: that plan must probe the rows it writes.
      await runner.query(`SET LOCAL plan_cache_mode = force_generic_plan`);
      await runner.query(`PREPARE record_outcomes_${prefix} AS ${RECORD_OUTCOMES_SQL}`);
      const execute = `EXECUTE record_outcomes_${prefix}(${params.map((p) => literal(p)).join(', ')})`;
      const [
        {
          'QUERY PLAN': [plan],
        },
      ] = await runner.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${execute}`);
      const counters = `SELECT stat_accepted, stat_failed, stat_skipped, completed_at FROM notifications WHERE id = $1`;
      expect((await runner.query(counters, [id]))[0]).toEqual({ stat_accepted: written - 6, stat_failed: 2, stat_skipped: 2, completed_at: null });
      // The same write again (its answer lost, say) finds nothing left "sending": nothing counts twice.
      await runner.query(execute);
      expect((await runner.query(counters, [id]))[0]).toEqual({ stat_accepted: written - 6, stat_failed: 2, stat_skipped: 2, completed_at: null });
      const statuses: { status: string; n: number }[] = await runner.query(
        `SELECT status, count(*)::int AS n FROM deliveries WHERE notification_id = $1 GROUP BY status ORDER BY status`,
        [id],
      );
      expect(statuses).toEqual([
        { status: 'accepted', n: written - 6 },
        { status: 'failed', n: 2 },
        { status: 'pending', n: 2 },
        { status: 'sending', n: rows - written },
        { status: 'skipped', n: 2 },
      ]);
      const [installation] = await runner.query(`SELECT invalid_reason, invalidated_at IS NOT NULL AS invalidated FROM installations WHERE id = $1`, [ids[0]]);
      expect(installation).toEqual({ invalid_reason: 'BadDeviceToken', invalidated: true });

      const scans: Record<string, number>[] = [];
      const walk = (node: Record<string, any>) => {
        if (String(node['Relation Name'] ?? '').startsWith('deliveries')) scans.push(node);
        for (const child of node.Plans ?? []) walk(child);
      };
      walk(plan.Plan);
      // The webhook outbox (docs/api.md#webhooks) reads webhooks once per invalidation or completion, never per outcome:
      // here one invalidation, no completion.
      const webhookProbes: number[] = [];
      const probes = (node: Record<string, any>) => {
        if (node['Relation Name'] === 'webhooks') webhookProbes.push(node['Actual Loops'] ?? 0);
        for (const child of node.Plans ?? []) probes(child);
      };
      probes(plan.Plan);
      expect(webhookProbes.reduce((sum, loops) => sum + loops, 0)).toBe(1);
      expect(scans.length).toBeGreaterThan(0);
      for (const scan of scans) {
        const read = scan['Actual Rows'] * (scan['Actual Loops'] ?? 1) + (scan['Rows Removed by Filter'] ?? 0) + (scan['Rows Removed by Join Filter'] ?? 0);
        expect(read).toBeLessThanOrEqual(written);
      }
      expect(JSON.stringify(plan)).not.toContain('Join Filter');
    } finally {
      await runner.rollbackTransaction();
      await runner.release();
    }
  });

  it('claims a badge-counting batch reading each written count once, whatever the plan joins (the plan a worker keeps)', async () => {
    const rows = 200;
    const id = await completedEmptySend('Counted');
    await ctx.db.query(
      `INSERT INTO installations (app_id, installation_id, platform, push_token, user_id, permission, registered_at, last_seen_at)
       SELECT $1, 'counted-' || n, 'ios', md5(n::text) || md5(n::text), 'counted-user', 'granted', now(), now() FROM generate_series(1, $2) AS n`,
      [tenant.appId, rows],
    );
    await ctx.db.query(
      `INSERT INTO deliveries (notification_id, installation_id, notification_started_at, platform, batch, status)
       SELECT $1, i.id, (SELECT processing_started_at FROM notifications WHERE id = $1), 'ios', 0, 'pending'
       FROM installations i WHERE i.app_id = $2 AND i.user_id = 'counted-user'`,
      [id, tenant.appId],
    );
    // A quarter already counted (5): those go to 6, the others to 1.
    await ctx.db.query(
      `INSERT INTO installation_badges (installation_id, badge)
       SELECT id, 5 FROM installations WHERE app_id = $1 AND user_id = 'counted-user' AND installation_id::text ~ '-[0-9]*[05]$'`,
      [tenant.appId],
    );
    const [{ started }] = await ctx.db.query(`SELECT processing_started_at AS started FROM notifications WHERE id = $1`, [id]);
    const params = claimParams(id, started, 0, false, { set: null, add: 1 }, null);

    const runner = ctx.db.createQueryRunner();
    await runner.startTransaction();
    try {
      // The plan the worker kept in the bench estimated each CTE at one row and joined the claimed
      // rows to the written counts in a nested loop, reading every count for every row (bench/HISTORY.md,
      // "The badge write's nested loop and key check"); here that join is all the planner may use.
      await runner.query(`SET LOCAL plan_cache_mode = force_generic_plan`);
      await runner.query(`SET LOCAL enable_hashjoin = off`);
      await runner.query(`SET LOCAL enable_mergejoin = off`);
      await runner.query(`PREPARE claim_counted AS ${CLAIM_SQL}`);
      const execute = `EXECUTE claim_counted(${params.map((p) => literal(p)).join(', ')})`;

      // What the claim answers: each row with the count it reached.
      await runner.query(`SAVEPOINT before_claim`);
      const claimedRows: { installation_id: string; badge: number }[] = await runner.query(execute);
      const expected: { id: string; badge: number }[] = await runner.query(
        `SELECT id, CASE WHEN installation_id ~ '-[0-9]*[05]$' THEN 6 ELSE 1 END AS badge FROM installations WHERE app_id = $1 AND user_id = 'counted-user'`,
        [tenant.appId],
      );
      const reached = new Map(expected.map((row) => [row.id, row.badge]));
      expect(claimedRows).toHaveLength(rows);
      for (const row of claimedRows) expect(row.badge).toBe(reached.get(row.installation_id));
      await runner.query(`ROLLBACK TO SAVEPOINT before_claim`);

      // And what it read to answer: each written count once.
      const [
        {
          'QUERY PLAN': [plan],
        },
      ] = await runner.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${execute}`);
      const cteScans: Record<string, any>[] = [];
      const walk = (node: Record<string, any>) => {
        if (node['Node Type'] === 'CTE Scan') cteScans.push(node);
        for (const child of node.Plans ?? []) walk(child);
      };
      walk(plan.Plan);
      const read = (cte: string) =>
        cteScans.filter((scan) => scan['CTE Name'] === cte).reduce((sum, scan) => sum + scan['Actual Rows'] * scan['Actual Loops'], 0);
      expect(read('badged')).toBe(rows);
      expect(read('claimed')).toBeLessThanOrEqual(2 * rows);
    } finally {
      await runner.rollbackTransaction();
      await runner.release();
    }
  });

  it('reads the outcome write’s joined lists as the arrays node-postgres would send (plainArray)', async () => {
    const ids = ['0b9a5f4e-2c1d-4e8f-9a7b-6c5d4e3f2a1b', 'f47ac10b-58cc-4372-a567-0e02b2c3d479'];
    const words = ['accepted', 'failed', 'skipped'];
    const [row] = await ctx.db.query(
      `SELECT $1::uuid[] = $2::uuid[] AS ids, $3::text[] = $4::text[] AS words, $5::uuid[] = '{}'::uuid[] AS empty, cardinality($1::uuid[]) AS n`,
      [plainArray(ids), ids, plainArray(words), words, plainArray([])],
    );
    expect(row).toEqual({ ids: true, words: true, empty: true, n: 2 });
  });

  it('commits a claim and an outcome write without waiting for the WAL flush, and nothing else (decisions 0003, 0012)', async () => {
    const id = await completedEmptySend('Flushed');
    const [installation] = await ctx.db.query(
      `INSERT INTO installations (app_id, installation_id, platform, push_token, user_id, permission, registered_at, last_seen_at)
       VALUES ($1, 'flushed-1', 'ios', $2, 'flushed-user', 'granted', now(), now()) RETURNING id`,
      [tenant.appId, apnsToken()],
    );
    await ctx.db.query(
      `INSERT INTO deliveries (notification_id, installation_id, notification_started_at, platform, batch, status)
       VALUES ($1, $2, (SELECT processing_started_at FROM notifications WHERE id = $1), 'ios', 0, 'pending')`,
      [id, installation.id],
    );
    const [{ started }] = await ctx.db.query(`SELECT processing_started_at AS started FROM notifications WHERE id = $1`, [id]);

    const runner = ctx.db.createQueryRunner();
    await runner.startTransaction();
    try {
      const setting = async () => ((await runner.query(`SHOW synchronous_commit`)) as { synchronous_commit: string }[])[0].synchronous_commit;
      // Any other transaction of the service waits for the flush.
      expect(await setting()).toBe('on');
      const claimed: unknown[] = await runner.query(CLAIM_SQL, claimParams(id, started, 0, false, { set: null, add: 0 }, null));
      expect(claimed).toHaveLength(1);
      expect(await setting()).toBe('off');
      await runner.query(`SET LOCAL synchronous_commit = on`);
      const outcome = { status: 'accepted' as const, reason: null, nextAttemptAt: null };
      await runner.query(
        RECORD_OUTCOMES_SQL,
        recordOutcomesParams([{ notificationId: id, notificationStartedAt: started, installationId: installation.id, outcome }]),
      );
      expect(await setting()).toBe('off');
    } finally {
      await runner.rollbackTransaction();
      await runner.release();
    }
  });

  it('completes a notification once its fan-out has finished and every installation it counted is accepted, failed or skipped', async () => {
    // fanned out, installations, accepted, failed, skipped: complete
    const cases: [boolean, number, number, number, number, boolean][] = [
      [false, 3, 3, 0, 0, false],
      [false, 0, 0, 0, 0, false],
      [true, 3, 1, 1, 1, true],
      [true, 3, 0, 0, 3, true],
      [true, 3, 2, 1, 1, true],
      [true, 3, 1, 1, 0, false],
      [true, 3, 0, 0, 0, false],
      [true, 0, 0, 0, 0, true],
    ];
    const rows: { n: number; done: boolean }[] = await ctx.db.query(
      `SELECT n, (${completionCondition()}) AS done
       FROM unnest($1::boolean[], $2::int[], $3::int[], $4::int[], $5::int[]) WITH ORDINALITY
         AS c(fanned_out, stat_installations, stat_accepted, stat_failed, stat_skipped, n),
       LATERAL (SELECT CASE WHEN c.fanned_out THEN now() END AS fanned_out_at) f
       ORDER BY n`,
      [0, 1, 2, 3, 4].map((k) => cases.map((c) => c[k])),
    );
    expect(rows.map((r) => r.done)).toEqual(cases.map((c) => c[5]));
  });
});

/** A value as an SQL literal (EXECUTE takes no bind parameters): text, timestamps, arrays of text, uuid or timestamps. */
function literal(value: unknown): string {
  if (value === null) return 'NULL';
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  const item = (v: string | Date | null) => (v === null ? 'NULL' : `"${(v instanceof Date ? v.toISOString() : String(v)).replace(/["\\]/g, '\\$&')}"`);
  if (value instanceof Date) return `'${value.toISOString()}'`;
  if (typeof value === 'string') return `'${value.replaceAll("'", "''")}'`;
  return `'{${(value as (string | Date | null)[]).map(item).join(',').replaceAll("'", "''")}}'`;
}
