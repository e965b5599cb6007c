import type { CarriedContent } from '../common/queues';
import { newTestService } from '../../test/support/new-test-service';
import { IdempotencyConflictError, NotFoundError, StateConflictError, ValidationFailedError } from '../common/errors';
import { contentOf, NewNotification, NotificationRow } from '../common/notification';
import { CredentialsService } from '../credentials/credentials.service';
import { SmallSendsService, StoredSend } from '../delivery/small-sends/small-sends.service';
import { FanoutJobs, SmallSendJobs } from '../queue/jobs';
import { FanoutSharesService } from '../delivery/fair-shares/fanout-shares.service';
import { SendNotificationDto } from './dto/send-notification.dto';
import { IdempotencyService } from './idempotency/idempotency.service';
import { NotificationsRepository } from './notifications.repository';
import { NotificationsService } from './notifications.service';

/** A small send's job's copy of its stored row (the content columns, its start as ISO text). */
const carriedOf = (row: NotificationRow): CarriedContent => ({ ...contentOf(row), processing_started_at: new Date().toISOString() });

const APP = '00000000-0000-4000-8000-0000000000aa';

/** Notifications by id, as the API's repository stores them. */
class InMemoryNotifications implements Pick<NotificationsRepository, 'insert' | 'find' | 'cancel'> {
  rows = new Map<string, NotificationRow>();
  inserted: { notification: NewNotification; key?: string }[] = [];
  failNextInsert: Error | null = null;

  async insert(notification: NewNotification, key?: string) {
    if (this.failNextInsert) throw this.failNextInsert;
    this.inserted.push({ notification, key });
    const row = stored(notification, null);
    this.rows.set(row.id, row);
    return row;
  }
  async find(appId: string, id: string) {
    const row = this.rows.get(id);
    return row?.app_id === appId ? row : undefined;
  }
  async cancel(appId: string, id: string) {
    const row = await this.find(appId, id);
    if (!row || row.completed_at || row.canceled_at) return undefined;
    row.canceled_at = new Date();
    return row;
  }
}

function stored(n: NewNotification, startedAt: Date | null): NotificationRow {
  return {
    ...n,
    ab_due_at: null,
    ab_winner: null,
    ab_decided_at: null,
    target_users: n.user_ids.length,
    stat_users: 0,
    stat_installations: 0,
    stat_accepted: 0,
    stat_received: 0,
    stat_displayed: 0,
    stat_opened: 0,
    stat_failed: 0,
    stat_skipped: 0,
    stat_inbox_stored: 0,
    stat_inbox_read: 0,
    created_at: new Date(),
    processing_started_at: startedAt,
    completed_at: null,
    canceled_at: null,
    failure_reason: null,
    fanned_out_at: null,
    fanout_audience: null,
  };
}

const send = (dto: Partial<SendNotificationDto> = {}): SendNotificationDto => ({
  notification: { title: 'Hi', body: 'There' },
  recipients: { user_ids: ['u1', 'u1', 'u2'] },
  ...dto,
});

function setup() {
  const notifications = new InMemoryNotifications();
  const built = newTestService(NotificationsService, { providers: [{ provide: NotificationsRepository, useValue: notifications }] });
  const smallSends = built.mocks.get(SmallSendsService);
  smallSends.accepts.mockReturnValue(false);
  built.mocks.get(CredentialsService).platforms.mockResolvedValue(['ios', 'android', 'web']);
  return {
    ...built,
    notifications,
    smallSends,
    fanoutJobs: built.mocks.get(FanoutJobs),
    fanoutShares: built.mocks.get(FanoutSharesService),
    smallSendJobs: built.mocks.get(SmallSendJobs),
  };
}

describe('NotificationsService', () => {
  describe('send', () => {
    it('stores the notification with its recipients once each, and offers its fan-out to its app’s window (docs/api.md#fair-sharing)', async () => {
      const { sut, notifications, fanoutJobs, fanoutShares } = setup();
      const result = await sut.send(APP, send(), {});
      expect(result).toMatchObject({ status: 202, replayed: false });
      const [{ notification }] = notifications.inserted;
      expect(notification).toMatchObject({ app_id: APP, title: 'Hi', recipient_kind: 'user_ids', user_ids: ['u1', 'u2'], send_at: null });
      expect(fanoutShares.offer).toHaveBeenCalledWith(APP, [notification.id]);
      expect(fanoutJobs.add).not.toHaveBeenCalled();
      expect(JSON.parse(result.body)).toMatchObject({ data: { id: notification.id }, meta: { accepted: true } });
    });

    it('holds a send_at ahead: the job of its instant waits until then, no fan-out job of its own (docs/api.md#due-sends)', async () => {
      const { sut, fanoutJobs } = setup();
      const at = new Date(Date.now() + 60_000);
      await sut.send(APP, send({ send_at: at.toISOString() }), {});
      await sut.send(APP, send({ send_at: at.toISOString() }), {});
      expect(fanoutJobs.addDue.mock.calls).toEqual([[at.getTime()], [at.getTime()]]);
      expect(fanoutJobs.add).not.toHaveBeenCalled();
    });

    it('queues a send_at already past as a send due now', async () => {
      const { sut, fanoutJobs, fanoutShares, notifications } = setup();
      await sut.send(APP, send({ send_at: '2020-01-01T00:00:00Z' }), {});
      expect(fanoutShares.offer).toHaveBeenCalledWith(APP, [notifications.inserted[0].notification.id]);
      expect(fanoutJobs.addDue).not.toHaveBeenCalled();
    });

    it('queues a small send’s batches with the notification, and no fan-out job', async () => {
      const { sut, smallSends, smallSendJobs, fanoutJobs, notifications } = setup();
      smallSends.accepts.mockReturnValue(true);
      smallSends.store.mockImplementation(async (n: NewNotification): Promise<StoredSend> => ({
        row: stored(n, new Date()),
        batches: [0],
        skipped: [{ platform: 'web', reason: 'NoToken', count: 1 }],
        seconds: 0.001,
        carried: carriedOf(stored(n, new Date())),
      }));
      await sut.send(APP, send(), {});
      expect(notifications.inserted).toEqual([]);
      const [id, batches, carried] = smallSendJobs.addBatches.mock.calls[0];
      expect(batches).toEqual([0]);
      expect(carried).toMatchObject({ app_id: APP });
      expect(id).toEqual(smallSends.store.mock.calls[0][0].id);
      expect(fanoutJobs.add).not.toHaveBeenCalled();
    });

    it('gives a small send without a batch its fan-out job, which completes it', async () => {
      const { sut, smallSends, smallSendJobs, fanoutJobs } = setup();
      smallSends.accepts.mockReturnValue(true);
      smallSends.store.mockImplementation(async (n: NewNotification) => ({
        row: stored(n, new Date()),
        batches: [],
        skipped: [],
        seconds: 0.001,
        carried: carriedOf(stored(n, new Date())),
      }));
      await sut.send(APP, send(), {});
      expect(smallSendJobs.addBatches).not.toHaveBeenCalled();
      expect(fanoutJobs.add).toHaveBeenCalledWith(expect.any(String), 0, true);
    });

    it('stores a small send that met the partitions in the making as any send, for its fan-out job', async () => {
      const { sut, smallSends, notifications, fanoutShares } = setup();
      smallSends.accepts.mockReturnValue(true);
      smallSends.store.mockResolvedValue(null);
      await sut.send(APP, send(), {});
      expect(notifications.inserted).toHaveLength(1);
      expect(fanoutShares.offer).toHaveBeenCalledWith(APP, [notifications.inserted[0].notification.id]);
    });

    it('queues a throttled send’s fan-out at once: its pace spreads it, it takes no place in the window', async () => {
      const { sut, notifications, fanoutJobs, fanoutShares } = setup();
      await sut.send(APP, send({ options: { throttle_per_minute: 600 } }), {});
      expect(fanoutJobs.add).toHaveBeenCalledWith(notifications.inserted[0].notification.id, 0);
      expect(fanoutShares.offer).not.toHaveBeenCalled();
    });

    it('refuses a payload too large for a platform the app can reach, and accepts it when it cannot reach it', async () => {
      const { sut, mocks } = setup();
      const large = send({ data: { blob: 'x'.repeat(5000) }, options: { platforms: ['ios'] } as never });
      await expect(sut.send(APP, large, {})).rejects.toBeInstanceOf(ValidationFailedError);
      mocks.get(CredentialsService).platforms.mockResolvedValue(['android']);
      await expect(sut.send(APP, large, {})).resolves.toMatchObject({ status: 202 });
    });
  });

  describe('send under an Idempotency-Key', () => {
    it('stores under the key, then answers the key with the send', async () => {
      const { sut, mocks, notifications } = setup();
      const idempotency = mocks.get(IdempotencyService);
      idempotency.claim.mockResolvedValue({ kind: 'claimed' });
      idempotency.complete.mockResolvedValue(true);
      const result = await sut.send(APP, send(), { a: 1 }, 'key-1');
      expect(notifications.inserted[0].key).toBe('key-1');
      expect(idempotency.complete).toHaveBeenCalledWith(APP, 'key-1', 202, result.body);
    });

    it('replays the first answer without storing anything', async () => {
      const { sut, mocks, notifications } = setup();
      mocks.get(IdempotencyService).claim.mockResolvedValue({ kind: 'replay', status: 202, body: '{"first":true}' });
      expect(await sut.send(APP, send(), {}, 'key-1')).toEqual({ status: 202, body: '{"first":true}', replayed: true });
      expect(notifications.inserted).toEqual([]);
    });

    it('frees the key when the send was not stored', async () => {
      const { sut, mocks, notifications } = setup();
      const idempotency = mocks.get(IdempotencyService);
      idempotency.claim.mockResolvedValue({ kind: 'claimed' });
      idempotency.release.mockResolvedValue(undefined);
      notifications.failNextInsert = new Error('database down');
      await expect(sut.send(APP, send(), {}, 'key-1')).rejects.toThrow('database down');
      expect(idempotency.release).toHaveBeenCalledWith(APP, 'key-1');
    });

    it('answers a key whose send was stored but not answered with that send', async () => {
      const { sut, mocks } = setup();
      const first = await sut.send(APP, send(), {});
      const id = JSON.parse(first.body).data.id as string;
      const idempotency = mocks.get(IdempotencyService);
      idempotency.claim.mockResolvedValue({ kind: 'stored', notificationId: id });
      idempotency.complete.mockResolvedValue(true);
      const answer = await sut.send(APP, send(), {}, 'key-1');
      expect(answer).toMatchObject({ status: 202, replayed: true });
      expect(JSON.parse(answer.body).data.id).toBe(id);
    });

    it('is in progress when the stored send is gone', async () => {
      const { sut, mocks } = setup();
      mocks.get(IdempotencyService).claim.mockResolvedValue({ kind: 'stored', notificationId: '00000000-0000-4000-8000-000000000099' });
      await expect(sut.send(APP, send(), {}, 'key-1')).rejects.toBeInstanceOf(IdempotencyConflictError);
    });
  });

  describe('cancel', () => {
    it('is 404 for an id that is not a uuid or not the app’s', async () => {
      const { sut } = setup();
      await expect(sut.cancel(APP, 'nope')).rejects.toBeInstanceOf(NotFoundError);
      await expect(sut.cancel(APP, '00000000-0000-4000-8000-000000000099')).rejects.toBeInstanceOf(NotFoundError);
    });

    it('cancels, runs a fan-out not yet done at once, and answers the same again', async () => {
      const { sut, fanoutJobs } = setup();
      const id = JSON.parse((await sut.send(APP, send({ send_at: new Date(Date.now() + 60_000).toISOString() }), {})).body).data.id as string;
      expect((await sut.cancel(APP, id)).id).toBe(id);
      expect(fanoutJobs.runNow).toHaveBeenCalledWith(id);
      expect((await sut.cancel(APP, id)).id).toBe(id);
      expect(fanoutJobs.runNow).toHaveBeenCalledTimes(1);
    });

    it('is a conflict once the notification has completed', async () => {
      const { sut, notifications } = setup();
      const id = JSON.parse((await sut.send(APP, send(), {})).body).data.id as string;
      notifications.rows.get(id)!.completed_at = new Date();
      await expect(sut.cancel(APP, id)).rejects.toBeInstanceOf(StateConflictError);
    });
  });
});
