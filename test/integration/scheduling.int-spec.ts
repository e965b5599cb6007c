import { DELIVER_QUEUE, dueSendsJobId, FANOUT_QUEUE } from '../../src/common/queues';
import { FanoutJobs } from '../../src/queue/jobs';
import { nextLocalTime } from '../../src/delivery/fan-out/local-time';
import { apnsToken, bearer, newApp, newInstallation, newToken } from '../support/factories';
import { notificationCompleted, readNotification } from '../support/notifications';
import { testQueue } from '../support/wait-for-queues';
import { useAppWithFakeProviders } from '../support/use-app-with-fake-providers';
import { useTenantWithProviders } from '../support/use-tenant-with-providers';
import { waitFor } from '../support/wait-for';

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** send_at, options.local_time and cancelling (docs/api.md#scheduling), through API, fan-out and delivery in one process. */
describe('scheduling and cancelling (docs/api.md#scheduling)', () => {
  // Due work whose job is lost is found by the sweeper DELIVERY_STUCK_MS after it fell due.
  const stack = useAppWithFakeProviders({ DELIVERY_STUCK_MS: '1000' });
  const { ctx } = stack;
  const tenant = useTenantWithProviders(stack, 'Scheduling');

  const send = (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
    ctx
      .http()
      .post('/api/v1/notifications')
      .set(bearer(tenant.token))
      .set(headers)
      .send({ notification: { title: 'Hello', body: 'World' }, ...body });
  const cancel = (id: string, token = tenant.token) => ctx.http().post(`/api/v1/notifications/${id}/cancel`).set(bearer(token));
  const read = (id: string) => readNotification(ctx, tenant.token, id);
  const completed = (id: string, timeoutMs?: number) => notificationCompleted(ctx, tenant.token, id, timeoutMs);
  const ios = async (body: Record<string, unknown> = {}): Promise<Record<string, any>> => {
    const push_token = apnsToken();
    return { ...(await newInstallation(ctx, tenant.token, { platform: 'ios', push_token, ...body })), push_token };
  };
  const apnsRequests = (pushToken: string) => stack.fakes.apns.requests.filter((r) => r.token === pushToken);
  const deliveries = (id: string) =>
    ctx.db.query(
      `SELECT i.installation_id, d.status, d.reason, d.scheduled_for, d.batch FROM deliveries d JOIN installations i ON i.id = d.installation_id
       WHERE d.notification_id = $1 ORDER BY i.installation_id`,
      [id],
    );
  /**
   * As if `ms` passed for this send, rather than waiting: its send_at moves back by `ms` (for
   * PostgreSQL, the fan-out's and the sweeper's clock) and its delayed fan-out job, if any, is due
   * at once (for BullMQ). Returns the send_at it now has.
   */
  const elapse = async (id: string, sendAt: Date, ms: number): Promise<Date> => {
    await ctx.db.query(`UPDATE notifications SET send_at = send_at - make_interval(secs => $2) WHERE id = $1`, [id, ms / 1000]);
    const queue = testQueue(ctx, FANOUT_QUEUE);
    try {
      // Its instant's due-sends job (docs/api.md#due-sends), and a fan-out job of its own if a test queued one.
      for (const jobId of [dueSendsJobId(sendAt.getTime()), `fanout-${id}`]) {
        const job = await queue.getJob(jobId);
        if (job && (await job.getState()) === 'delayed') await job.promote();
      }
    } finally {
      await queue.close();
    }
    return new Date(sendAt.getTime() - ms);
  };
  /** The state of a job on the fan-out queue: `fanout-<id>`, or `due-<ms>` (docs/api.md#due-sends). */
  const fanoutState = async (jobId: string) => {
    const queue = testQueue(ctx, FANOUT_QUEUE);
    try {
      return await (await queue.getJob(jobId))?.getState();
    } finally {
      await queue.close();
    }
  };

  describe('send_at', () => {
    it.each<[string, unknown, string]>([
      ['more than 30 days ahead', new Date(Date.now() + 31 * 86_400_000).toISOString(), 'The send_at field must not be more than 30 days in the future.'],
      [
        'without a zone',
        '2026-12-01T09:00:00',
        'The send_at field must be a real ISO 8601 date-time with Z or a ±hh:mm offset, between the years 2000 and 2100.',
      ],
      ['not a date', 'tomorrow', 'The send_at field must be a real ISO 8601 date-time with Z or a ±hh:mm offset, between the years 2000 and 2100.'],
      ['a number', 1764300000, 'The send_at field must be a string.'],
    ])('422 on send_at %s', async (_name, sendAt, message) => {
      const res = await send({ recipients: { user_ids: ['u'] }, send_at: sendAt });
      expect(res.status).toBe(422);
      expect(res.body.errors).toEqual({ send_at: [message] });
    });

    it('accepts 30 days ahead and an offset; echoes send_at in UTC', async () => {
      const res = await send({ recipients: { user_ids: ['nobody'] }, send_at: '2026-11-30T10:00:00+01:00' });
      expect(res.status).toBe(202);
      expect(res.body.data.send_at).toBe('2026-11-30T09:00:00.000Z');
      const edge = new Date(Date.now() + 30 * 86_400_000 - 60_000).toISOString();
      expect((await send({ recipients: { user_ids: ['nobody'] }, send_at: edge })).status).toBe(202);
      expect((await send({ recipients: { user_ids: ['nobody'] }, send_at: null })).body.data.send_at).toBeNull();
    });

    it('a send_at in the past means now', async () => {
      const i = await ios({ user_id: 'past' });
      const res = await send({ recipients: { user_ids: ['past'] }, send_at: '2020-01-01T00:00:00Z' });
      expect(res.status).toBe(202);
      expect(res.body.data.send_at).toBe('2020-01-01T00:00:00.000Z');
      const done = await completed(res.body.data.id);
      expect(done.statistics).toMatchObject({ installations: 1, accepted: 1 });
      expect(apnsRequests(i.push_token)).toHaveLength(1);
    });

    it('holds the fan-out until send_at: nothing arrives before it', async () => {
      const i = await ios({ user_id: 'later' });
      const sendAt = new Date(Date.now() + 60_000);
      const res = await send({ recipients: { user_ids: ['later'] }, send_at: sendAt.toISOString() });
      expect(res.status).toBe(202);
      expect(res.body.data).toMatchObject({ send_at: sendAt.toISOString(), processing_started_at: null, canceled_at: null });
      // Until send_at: its instant's due-sends job waits (no fan-out job of its own), and there is no fan-out, no delivery row, no message.
      expect(await fanoutState(dueSendsJobId(sendAt.getTime()))).toBe('delayed');
      expect(await fanoutState(`fanout-${res.body.data.id}`)).toBeUndefined();
      expect((await read(res.body.data.id)).processing_started_at).toBeNull();
      expect(await deliveries(res.body.data.id)).toEqual([]);
      expect(apnsRequests(i.push_token)).toEqual([]);
      const due = await elapse(res.body.data.id, sendAt, 60_000);
      const done = await completed(res.body.data.id);
      expect(done.statistics).toMatchObject({ installations: 1, accepted: 1 });
      expect(new Date(done.processing_started_at).getTime()).toBeGreaterThanOrEqual(due.getTime());
      const [request] = apnsRequests(i.push_token);
      expect(request.at.getTime()).toBeGreaterThanOrEqual(due.getTime());
      expect((await deliveries(res.body.data.id))[0].scheduled_for).toEqual(due);
    });

    it('an early fan-out job (clock skew, a re-queue) goes back to waiting until send_at', async () => {
      const i = await ios({ user_id: 'early' });
      const sendAt = new Date(Date.now() + 60_000);
      const res = await send({ recipients: { user_ids: ['early'] }, send_at: sendAt.toISOString() });
      const queue = testQueue(ctx, FANOUT_QUEUE);
      try {
        // Queued to run now: the worker takes it, finds send_at ahead and moves it back to delayed.
        await ctx.get(FanoutJobs).add(res.body.data.id);
        await waitFor(async () => (await (await queue.getJob(`fanout-${res.body.data.id}`))?.getState()) === 'delayed', 'the job to wait again');
      } finally {
        await queue.close();
      }
      expect((await read(res.body.data.id)).processing_started_at).toBeNull();
      const due = await elapse(res.body.data.id, sendAt, 60_000);
      const done = await completed(res.body.data.id);
      expect(new Date(done.processing_started_at).getTime()).toBeGreaterThanOrEqual(due.getTime());
      expect(apnsRequests(i.push_token)[0].at.getTime()).toBeGreaterThanOrEqual(due.getTime());
    });

    it('survives the loss of its queued job: the sweeper fans it out from PostgreSQL once due', async () => {
      const i = await ios({ user_id: 'flushed' });
      const sendAt = new Date(Date.now() + 60_000);
      const res = await send({ recipients: { user_ids: ['flushed'] }, send_at: sendAt.toISOString() });
      // As after a Redis flush: the delayed due-sends job of its instant is gone.
      const queue = testQueue(ctx, FANOUT_QUEUE);
      try {
        const job = await queue.getJob(dueSendsJobId(sendAt.getTime()));
        expect(await job!.getState()).toBe('delayed');
        await job!.remove();
      } finally {
        await queue.close();
      }
      // Due, and DELIVERY_STUCK_MS (1 s here) past it, when the sweeper looks.
      await elapse(res.body.data.id, sendAt, 61_000);
      const done = await completed(res.body.data.id, 25_000);
      expect(done.statistics).toMatchObject({ installations: 1, accepted: 1 });
      expect(apnsRequests(i.push_token)).toHaveLength(1);
    });
  });

  describe('cancel', () => {
    it('before send_at: sends nothing and completes with every delivery Canceled; again 200 unchanged; a replay answers as the first time', async () => {
      const installations = [await ios({ user_id: 'c1' }), await ios({ user_id: 'c1' }), await ios({ user_id: 'c2' })];
      const body = {
        recipients: { user_ids: ['c1', 'c2'] },
        notification: { title: 'Hello', body: 'World' },
        send_at: new Date(Date.now() + 3_600_000).toISOString(),
      };
      const first = await send(body, { 'Idempotency-Key': 'cancel-me' });
      expect(first.status).toBe(202);
      const id = first.body.data.id;

      const canceled = await cancel(id);
      expect(canceled.status).toBe(200);
      expect(canceled.body.data).toMatchObject({ id, canceled_at: expect.stringMatching(ISO_MS) });
      const done = await completed(id);
      expect(done.canceled_at).toBe(canceled.body.data.canceled_at);
      expect(done.statistics).toMatchObject({ users: 2, installations: 3, accepted: 0, failed: 0, skipped: 3 });
      // Every row is final (skipped), so no job can send anything later. (Queues never go idle in
      // this file: the sends of the send_at tests wait up to 30 days as delayed jobs.)
      expect((await deliveries(id)).map((d: { status: string; reason: string }) => [d.status, d.reason])).toEqual(Array(3).fill(['skipped', 'Canceled']));
      for (const i of installations) expect(apnsRequests(i.push_token)).toHaveLength(0);

      const again = await cancel(id);
      expect(again.status).toBe(200);
      expect(again.body.data.canceled_at).toBe(canceled.body.data.canceled_at);
      expect(again.body.data.completed_at).toBe(done.completed_at);

      const replay = await send(body, { 'Idempotency-Key': 'cancel-me' });
      expect(replay.status).toBe(202);
      expect(replay.headers['idempotent-replayed']).toBe('true');
      expect(replay.body).toEqual(first.body);
    });

    it('takes no body: a field is a 422, not JSON a 415, over 1 MiB a 413, and nothing is canceled by them', async () => {
      const res = await send({
        recipients: { user_ids: ['nobody'] },
        notification: { title: 'T', body: 'B' },
        send_at: new Date(Date.now() + 3_600_000).toISOString(),
      });
      const id = res.body.data.id;
      const withField = await cancel(id).send({ reason: 'changed my mind' });
      expect(withField.status).toBe(422);
      expect(withField.body.errors).toEqual({ reason: ['The reason field is not allowed.'] });
      const notAnObject = await cancel(id).set('Content-Type', 'application/json').send('[1]');
      expect(notAnObject.status).toBe(422);
      expect(notAnObject.body.errors).toEqual({ body: ['The request body must be a JSON object.'] });
      expect((await cancel(id).set('Content-Type', 'text/plain').send('now')).status).toBe(415);
      expect((await cancel(id).send({ pad: 'x'.repeat(1024 * 1024) })).status).toBe(413);
      const untouched = await ctx.http().get(`/api/v1/notifications/${id}`).set(bearer(tenant.token));
      expect(untouched.body.data.canceled_at).toBeNull();
      expect((await cancel(id).send({})).status).toBe(200);
    });

    it('during retries: the rows not yet sent are Canceled at once and the notification completes', async () => {
      const sent = await ios({ user_id: 'r1' });
      const retried = await ios({ user_id: 'r1' });
      stack.fakes.apns.script(retried.push_token, [{ status: 503, reason: 'ServiceUnavailable', retryAfter: 30 }]);
      const res = await send({ recipients: { user_ids: ['r1'] } });
      const id = res.body.data.id;
      await waitFor(async () => apnsRequests(retried.push_token).length === 1 && apnsRequests(sent.push_token).length === 1, 'the first attempts');
      await waitFor(async () => (await read(id)).statistics.accepted === 1, 'the accepted one to be counted');
      const canceled = await cancel(id);
      expect(canceled.status).toBe(200);
      expect(canceled.body.data.completed_at).toMatch(ISO_MS);
      expect(canceled.body.data.statistics).toMatchObject({ installations: 2, accepted: 1, skipped: 1 });
      const rows = await deliveries(id);
      expect(rows.find((d: { installation_id: string }) => d.installation_id === retried.installation_id)).toMatchObject({
        status: 'skipped',
        reason: 'Canceled',
      });
    });

    it("is run again when it deadlocks with a worker's outcome write (which holds a delivery row and waits for the notification's)", async () => {
      const retried = await ios({ user_id: 'd1' });
      stack.fakes.apns.script(retried.push_token, [{ status: 503, reason: 'ServiceUnavailable', retryAfter: 30 }]);
      const id = (await send({ recipients: { user_ids: ['d1'] } })).body.data.id;
      await waitFor(async () => (await deliveries(id))[0]?.status === 'pending' && apnsRequests(retried.push_token).length === 1, 'the retry to be pending');
      // A transaction that locks the pending row and then the notification's, as RECORD_OUTCOMES_SQL
      // does with the rows it writes; the cancel locks them the other way round.
      const writer = ctx.db.createQueryRunner();
      await writer.connect();
      try {
        await writer.startTransaction();
        await writer.query(`UPDATE deliveries SET updated_at = now() WHERE notification_id = $1`, [id]);
        const canceling = cancel(id).then((res) => res);
        // The cancel's statement itself (on the PostgreSQL queue backend the queue's own statements may wait on locks too).
        await waitFor(
          async () =>
            (
              await ctx.db.query(
                `SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%canceled AS (%'`,
              )
            ).length > 0 || null,
          'the cancel to wait for the row',
        );
        // The cancel waited first, so its deadlock check (deadlock_timeout, 1 s) finds the cycle and rolls it back.
        await writer.query(`UPDATE notifications SET stat_failed = stat_failed WHERE id = $1`, [id]);
        await writer.commitTransaction();
        const canceled = await canceling;
        expect(canceled.status).toBe(200);
        expect(canceled.body.data).toMatchObject({ canceled_at: expect.stringMatching(ISO_MS), completed_at: expect.stringMatching(ISO_MS) });
        expect((await deliveries(id))[0]).toMatchObject({ status: 'skipped', reason: 'Canceled' });
      } finally {
        if (writer.isTransactionActive) await writer.rollbackTransaction();
        await writer.release();
      }
    });

    it('a delivery job that wakes up for a cancelled notification sends nothing', async () => {
      const retried = await ios({ user_id: 'w1' });
      stack.fakes.apns.script(retried.push_token, [{ status: 503, reason: 'ServiceUnavailable', retryAfter: 1 }]);
      const res = await send({ recipients: { user_ids: ['w1'] } });
      const id = res.body.data.id;
      await waitFor(async () => (await deliveries(id))[0]?.status === 'pending' && apnsRequests(retried.push_token).length === 1, 'the retry to be pending');
      // The cancel's row update has not reached this row (as if it ran while the row was in flight).
      await ctx.db.query(`UPDATE notifications SET canceled_at = now() WHERE id = $1`, [id]);
      const done = await completed(id);
      expect(done.statistics).toMatchObject({ installations: 1, accepted: 0, skipped: 1 });
      expect((await deliveries(id))[0]).toMatchObject({ status: 'skipped', reason: 'Canceled' });
      // The retry job has run (it is what skipped the row), and sent nothing.
      expect(apnsRequests(retried.push_token)).toHaveLength(1);
    });

    it('409 for a notification that had completed; 404 for another app’s, an unknown id or not an id; 403 without notifications:send', async () => {
      await ios({ user_id: 'done' });
      const res = await send({ recipients: { user_ids: ['done'] } });
      await completed(res.body.data.id);
      const conflict = await cancel(res.body.data.id);
      expect(conflict.status).toBe(409);
      expect(conflict.body).toEqual({ message: 'This notification has already completed.' });
      expect((await read(res.body.data.id)).canceled_at).toBeNull();

      const stranger = await newApp(ctx, 'Stranger');
      expect((await cancel(res.body.data.id, stranger.token)).body).toEqual({ message: 'Not Found' });
      expect((await cancel('00000000-0000-4000-8000-000000000000')).status).toBe(404);
      expect((await cancel('not-an-id')).status).toBe(404);
      const readOnly = await newToken(ctx, tenant.appId, ['notifications:read']);
      expect((await cancel(res.body.data.id, readOnly)).status).toBe(403);
    });
  });

  describe('options.local_time', () => {
    it.each<[string, unknown, string]>([
      ['24:00', '24:00', 'The options.local_time field must be a 24-hour time of day, HH:MM.'],
      ['9:00', '9:00', 'The options.local_time field must be at least 5 characters.'],
      ['09:60', '09:60', 'The options.local_time field must be a 24-hour time of day, HH:MM.'],
      ['09:00:00', '09:00:00', 'The options.local_time field must not be greater than 5 characters.'],
      ['a number', 900, 'The options.local_time field must be a string.'],
      ['null', null, 'The options.local_time field must be a string.'],
    ])('422 on local_time %s', async (_name, localTime, message) => {
      const res = await send({ recipients: { user_ids: ['u'] }, options: { local_time: localTime } });
      expect(res.status).toBe(422);
      expect(res.body.errors).toEqual({ 'options.local_time': [message] });
    });

    it('schedules each installation at its zone’s time, grouped by due time, and delivers one whose time comes round', async () => {
      // The next whole minute far enough ahead for the fan-out to run first.
      const now = Date.now();
      const due = new Date(Math.ceil((now + 15_000) / 60_000) * 60_000);
      const kolkata = new Intl.DateTimeFormat('en-GB', { timeZone: 'Asia/Kolkata', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).format(due);
      const soon = [
        await ios({ user_id: 'lt', device: { timezone: 'Asia/Kolkata', locale: 'en' } }),
        await ios({ user_id: 'lt', device: { timezone: 'Asia/Kolkata' } }),
      ];
      // Five and a half hours later in UTC (and in a zone Intl does not know).
      const utc = [await ios({ user_id: 'lt', device: { timezone: 'Mars/Olympus' } }), await ios({ user_id: 'lt' })];
      const paris = await ios({ user_id: 'lt', device: { timezone: 'Europe/Paris' } });

      const res = await send({ recipients: { user_ids: ['lt'] }, options: { local_time: kolkata } });
      expect(res.status).toBe(202);
      const id = res.body.data.id;
      const accepted = new Date(res.body.data.created_at);
      await waitFor(async () => (await read(id)).statistics.installations === 5, 'the fan-out');
      const rows = await deliveries(id);
      const rowOf = (installationId: string) => rows.find((r: { installation_id: string }) => r.installation_id === installationId);
      expect(rowOf(soon[0].installation_id)).toMatchObject({ status: 'scheduled', scheduled_for: due });
      expect(rowOf(soon[1].installation_id)).toMatchObject({ status: 'scheduled', scheduled_for: due });
      // Kolkata is UTC+5:30 all year: UTC's clock shows the same time 5.5 hours later.
      const utcDue = nextLocalTime(accepted, kolkata, 'UTC');
      expect(utcDue.getTime() - due.getTime()).toBe(5.5 * 3_600_000);
      for (const i of utc) expect(rowOf(i.installation_id)).toMatchObject({ status: 'scheduled', scheduled_for: utcDue });
      expect(rowOf(paris.installation_id)).toMatchObject({ status: 'scheduled', scheduled_for: nextLocalTime(accepted, kolkata, 'Europe/Paris') });
      // One batch per due time: the two Kolkata rows share one, the two UTC rows another.
      expect(rowOf(soon[0].installation_id).batch).toBe(rowOf(soon[1].installation_id).batch);
      expect(rowOf(utc[0].installation_id).batch).toBe(rowOf(utc[1].installation_id).batch);
      expect(new Set(rows.map((r: { batch: number }) => r.batch)).size).toBe(3);
      expect((await read(id)).completed_at).toBeNull();

      // One delayed job per due time and batch; then, as after a Redis flush, they are gone: the
      // sweeper finds the due rows in PostgreSQL.
      const queue = testQueue(ctx, DELIVER_QUEUE);
      try {
        const delayed = (await queue.getDelayed()).filter((job) => job.data.notificationId === id);
        expect(delayed.map((job) => job.data.batch).sort()).toEqual([...new Set(rows.map((r: { batch: number }) => r.batch))].sort());
        for (const job of delayed) await job.remove();
      } finally {
        await queue.close();
      }

      // Kolkata's time comes round, as PostgreSQL sees it: rather than waiting, every instant of
      // this send's rows moves back by the time left until it, as if that time had passed.
      const left = Math.max(0, due.getTime() - Date.now());
      const cameRound = new Date(due.getTime() - left);
      await ctx.db.query(
        `UPDATE deliveries SET scheduled_for = scheduled_for - make_interval(secs => $2), next_attempt_at = next_attempt_at - make_interval(secs => $2),
           updated_at = updated_at - make_interval(secs => $2)
         WHERE notification_id = $1`,
        [id, left / 1000],
      );
      expect((await deliveries(id)).filter((r: { scheduled_for: Date }) => r.scheduled_for.getTime() === cameRound.getTime())).toHaveLength(2);
      await waitFor(async () => (await read(id)).statistics.accepted === 2, 'the Kolkata installations to be sent to');
      for (const i of soon) {
        const [request] = apnsRequests(i.push_token);
        expect(request.at.getTime()).toBeGreaterThanOrEqual(cameRound.getTime());
      }
      for (const i of [...utc, paris]) expect(apnsRequests(i.push_token)).toHaveLength(0);
      expect((await read(id)).completed_at).toBeNull();

      // The rest is cancelled: the scheduled rows are Canceled and the notification completes.
      const canceled = await cancel(id);
      expect(canceled.body.data.completed_at).toMatch(ISO_MS);
      expect(canceled.body.data.statistics).toMatchObject({ installations: 5, accepted: 2, skipped: 3 });
    });
  });
});
