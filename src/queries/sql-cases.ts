import type { DataSource } from 'typeorm';
import { AdminRepository } from '../admin/admin.repository';
import { AppsRepository } from '../apps/apps.repository';
import { TokensRepository } from '../auth/tokens.repository';
import { CredentialsRepository } from '../credentials/credentials.repository';
import { CompletionReportRepository } from '../delivery/completion-report.repository';
import { DeliveriesRepository } from '../delivery/deliver/deliveries.repository';
import { ChunkParams, FanOutRepository, NotificationInsert, StoreSmallSend } from '../delivery/fan-out/fan-out.repository';
import { RetentionRepository } from '../delivery/retention/retention.repository';
import { SweeperRepository } from '../delivery/sweeper/sweeper.repository';
import { InstallationsRepository } from '../installations/installations.repository';
import { LiveActivityUpdatesRepository } from '../delivery/live-activity/live-activity-updates.repository';
import { LiveActivitiesRepository, NewLiveActivityUpdate } from '../live-activities/live-activities.repository';
import { RECIPIENT_KINDS, RecipientKind } from '../common/vocabulary';
import { FilterNode } from '../common/audience-filter';
import { AudiencesRepository } from '../notifications/audiences.repository';
import { DeliveryTraceRepository } from '../notifications/delivery-trace.repository';
import { NewNotification, NotificationsRepository } from '../notifications/notifications.repository';
import { WebhooksRepository } from '../webhooks/webhooks.repository';

/**
 * How each repository method is called to capture its SQL (src/queries/sync-sql.ts): one case per
 * method, and one per case of a method that builds its SQL per case (the fan-out per recipients
 * kind). `answers` are what the recorder hands back to the method's queries in order, where the
 * method needs a row to go on (StatementRecorder). A new repository method gets its case here;
 * the SQL files test fails until `npm run sql:sync` has written it.
 */
export interface SqlCase {
  name: string;
  call: (db: DataSource) => Promise<unknown>;
  answers?: unknown[];
}

export interface SqlFile {
  /** The file under src/queries/. */
  file: string;
  cases: SqlCase[];
}

const ID = '00000000-0000-4000-8000-000000000001';
const OTHER_ID = '00000000-0000-4000-8000-000000000002';
const AT = new Date('2026-01-05T00:00:00.000Z');
const LIVE_UPDATE: NewLiveActivityUpdate = { event: 'update', content: '{"content_state":{}}', priority: 'normal', acceptedAt: AT };
const WEEK = { name: 'deliveries_p20260105', from: AT, to: new Date('2026-01-12T00:00:00.000Z') };

const NOTIFICATION: NewNotification = {
  id: ID,
  appId: OTHER_ID,
  title: 'Title',
  body: 'Body',
  imageUrl: null,
  actionUrl: null,
  data: null,
  options: null,
  recipientKind: 'user_ids',
  userIds: ['user-1'],
  installationIds: null,
  tags: null,
  filter: null,
  sendAt: null,
  localizations: null,
};

const CHUNK: ChunkParams = {
  appId: OTHER_ID,
  chunkSize: 5000,
  batchSize: 500,
  wanted: ['ios', 'android', 'web'],
  configured: ['ios'],
  silentless: [],
  dueTimes: (zones) => ({ zones, dues: zones.map(() => AT), quietSkips: zones.map(() => false), fallback: AT, fallbackQuietSkip: false }),
  fixedDue: null,
  cap: { max: 3, hours: 24 },
  paceMs: 500,
};

/** The notification row nextChunk locks, for one recipients kind; `ids` empty: the list is used up; a filter's audience not staged yet unless its chunks are given. */
const locked = (kind: RecipientKind, ids: string[] = ['x'], audienceChunks: number | null = null) => [
  {
    kind,
    position: 0,
    batches: 0,
    fanned_out_at: null,
    cursor: null,
    canceled: false,
    tags: ['t'],
    ids,
    filter: FILTER,
    started_at: AT,
    audience_chunks: audienceChunks,
  },
];
const chunkDone = { found: 1, last_installation_id: 'x', users: 1, installations: 1, skipped: 0, skipped_by_reason: [], batches_used: 1, batches: [] };
/** A filter send's audience as its first chunk stages it (FanOutRepository.stageAudience): two chunks. */
const staged = (kind: RecipientKind) => (kind === 'filter' ? [[], [{ chunks: 2 }]] : []);
const walked = (kind: RecipientKind) => kind === 'tags' || kind === 'all';
/** A small send of one user id, as SmallSends.plan stores it. */
const storeSmallSend =
  (db: DataSource): StoreSmallSend =>
  async <Row>(insert: NotificationInsert) =>
    (
      await new FanOutRepository(db).storeSmallSend<Row>(
        insert,
        ID,
        { ...CHUNK, dueTimes: undefined, cap: null, paceMs: null },
        { kind: 'user_ids', ids: ['user-1'] },
      )
    ).row;

/** A filter with a condition of each kind of SQL (docs/api.md#audience-filters). */
const FILTER: FilterNode = {
  and: [
    { field: 'platform', op: 'in', value: ['ios', 'android'] },
    { field: 'properties.plan', op: 'eq', value: 'pro' },
    { field: 'app_version', op: 'gte', value: '4.2' },
    { field: 'last_seen_at', op: 'within_last', value: '30d' },
    { or: [{ field: 'tags', op: 'contains', value: 'beta' }, { not: { field: 'language', op: 'ne', value: 'fr' } }] },
  ],
};

export const SQL_FILES: SqlFile[] = [
  {
    file: 'audiences.repository.sql',
    cases: [
      { name: 'AudiencesRepository.count (user_ids)', call: (db) => new AudiencesRepository(db).count(ID, { kind: 'user_ids', list: ['user-1'] }) },
      { name: 'AudiencesRepository.count (tags)', call: (db) => new AudiencesRepository(db).count(ID, { kind: 'tags', list: ['beta'] }) },
      { name: 'AudiencesRepository.count (filter)', call: (db) => new AudiencesRepository(db).count(ID, { kind: 'filter', filter: FILTER, now: AT }) },
      { name: 'AudiencesRepository.count (all)', call: (db) => new AudiencesRepository(db).count(ID, { kind: 'all' }) },
    ],
  },
  {
    file: 'admin.repository.sql',
    cases: [
      { name: 'AdminRepository.minutesSince', call: (db) => new AdminRepository(db).minutesSince(AT) },
      { name: 'AdminRepository.minutesOf', call: (db) => new AdminRepository(db).minutesOf(ID, 100) },
    ],
  },
  {
    file: 'apps.repository.sql',
    cases: [
      { name: 'AppsRepository.insert', call: (db) => new AppsRepository(db).insert('Shop') },
      { name: 'AppsRepository.list', call: (db) => new AppsRepository(db).list() },
      { name: 'AppsRepository.find', call: (db) => new AppsRepository(db).find(ID) },
      { name: 'AppsRepository.delete', call: (db) => new AppsRepository(db).delete(ID) },
      { name: 'AppsRepository.exists', call: (db) => new AppsRepository(db).exists(ID) },
      { name: 'AppsRepository.settings', call: (db) => new AppsRepository(db).settings(ID) },
      {
        name: 'AppsRepository.updateSettings',
        call: (db) =>
          new AppsRepository(db).updateSettings(ID, {
            frequencyCap: { max: 3, hours: 24 },
            quietHours: { start: '22:00', end: '07:00' },
            identityVerification: true,
          }),
      },
      {
        name: 'AppsRepository.changeIdentitySecrets',
        call: (db) => new AppsRepository(db).changeIdentitySecrets(ID, () => ({ current: 'sealed', previous: null })),
        answers: [[{ id: ID }]],
      },
    ],
  },
  {
    file: 'tokens.repository.sql',
    cases: [
      {
        name: 'TokensRepository.insert',
        call: (db) => new TokensRepository(db).insert({ appId: ID, name: null, tokenHash: 'hash', abilities: ['notifications:send'], expiresInDays: null }),
      },
      { name: 'TokensRepository.listByApp', call: (db) => new TokensRepository(db).listByApp(ID) },
      { name: 'TokensRepository.revoke', call: (db) => new TokensRepository(db).revoke(ID) },
      { name: 'TokensRepository.findByHash', call: (db) => new TokensRepository(db).findByHash('hash') },
      { name: 'TokensRepository.touchLastUsed', call: (db) => new TokensRepository(db).touchLastUsed(ID, 60_000) },
    ],
  },
  {
    file: 'credentials.repository.sql',
    cases: [
      {
        name: 'CredentialsRepository.resealAll',
        call: (db) => new CredentialsRepository(db).resealAll(() => new Map([['apns_private_key_enc', 'v1:sealed']])),
        answers: [[{ app_id: ID, apns_private_key_enc: 'v1:old', fcm_service_account_enc: null, vapid_private_key_enc: null }]],
      },
      {
        name: 'CredentialsRepository.clear',
        call: (db) => new CredentialsRepository(db).clear(ID, ['apns_key_id', 'apns_team_id', 'apns_topic', 'apns_production', 'apns_private_key_enc']),
      },
      {
        name: 'CredentialsRepository.upsert',
        call: (db) =>
          new CredentialsRepository(db).upsert(
            ID,
            new Map<string, unknown>([
              ['vapid_subject', 'mailto:ops@example.com'],
              ['vapid_public_key', 'public'],
            ]),
            new Set(['vapid_public_key']),
          ),
      },
    ],
  },
  {
    file: 'completion-report.repository.sql',
    cases: [{ name: 'CompletionReportRepository.summary', call: (db) => new CompletionReportRepository(db).summary(ID) }],
  },
  {
    file: 'deliveries.repository.sql',
    cases: [
      { name: 'DeliveriesRepository.claim', call: (db) => new DeliveriesRepository(db).claim(ID, AT, 0, false) },
      {
        name: 'DeliveriesRepository.recordOutcomes',
        call: (db) =>
          new DeliveriesRepository(db).recordOutcomes([
            { notificationId: ID, notificationStartedAt: AT, installationId: OTHER_ID, outcome: { status: 'accepted', reason: null, nextAttemptAt: null } },
          ]),
      },
      { name: 'DeliveriesRepository.content', call: (db) => new DeliveriesRepository(db).content(ID) },
      { name: 'DeliveriesRepository.pendingBatches', call: (db) => new DeliveriesRepository(db).pendingBatches(ID) },
      { name: 'DeliveriesRepository.cancelLeftovers', call: (db) => new DeliveriesRepository(db).cancelLeftovers(ID, 0) },
      { name: 'DeliveriesRepository.completeIfDone', call: (db) => new DeliveriesRepository(db).completeIfDone(ID) },
      { name: 'DeliveriesRepository.completeFinished', call: (db) => new DeliveriesRepository(db).completeFinished() },
    ],
  },
  {
    file: 'fan-out.repository.sql',
    cases: [
      { name: 'FanOutRepository.start', call: (db) => new FanOutRepository(db).start(ID) },
      ...RECIPIENT_KINDS.map((kind) => ({
        name: `FanOutRepository.nextChunk (${kind})`,
        call: (db: DataSource) => new FanOutRepository(db).nextChunk(ID, CHUNK),
        // A walk's chunk of its full size, a filter's first of two: the fan-out goes on.
        answers: [locked(kind), ...staged(kind), [{ zone: 'Europe/Paris' }], [], [walked(kind) ? { ...chunkDone, found: CHUNK.chunkSize } : chunkDone]],
      })),
      // TypeORM answers an UPDATE ... RETURNING with [rows, affected].
      { name: 'FanOutRepository.finishSmallSend', call: (db) => new FanOutRepository(db).finishSmallSend(ID), answers: [[[{ id: ID }], 1]] },
      ...RECIPIENT_KINDS.map((kind) => ({
        name: `FanOutRepository.nextChunk, the last (${kind})`,
        call: (db: DataSource) => new FanOutRepository(db).nextChunk(ID, { ...CHUNK, dueTimes: undefined }),
        // A walk's chunk that finds fewer than its size, a filter's that takes the rest of its audience, a list used up.
        answers: walked(kind)
          ? [locked(kind), [], [{ ...chunkDone, found: 0 }]]
          : kind === 'filter'
            ? [locked(kind, [], 1), [], [chunkDone]]
            : [locked(kind, [])],
      })),
    ],
  },
  {
    file: 'live-activities.repository.sql',
    cases: [
      { name: 'LiveActivitiesRepository.installation', call: (db) => new LiveActivitiesRepository(db).installation(ID, 'device-1') },
      {
        name: 'LiveActivitiesRepository.upsert',
        call: (db) => new LiveActivitiesRepository(db).upsert(ID, 'activity-1', OTHER_ID, 'Attributes', 'ab', 'active'),
      },
      { name: 'LiveActivitiesRepository.find', call: (db) => new LiveActivitiesRepository(db).find(ID, 'activity-1') },
      { name: 'LiveActivitiesRepository.end', call: (db) => new LiveActivitiesRepository(db).end(ID, 'activity-1', 'ended') },
      { name: 'LiveActivitiesRepository.accept', call: (db) => new LiveActivitiesRepository(db).accept(ID, 'activity-1', LIVE_UPDATE, 'active') },
      {
        name: 'LiveActivitiesRepository.acceptWithResponse',
        call: (db) => new LiveActivitiesRepository(db).acceptWithResponse(ID, 'activity-1', LIVE_UPDATE, 'active', 'key', () => ({ status: 202, body: '{}' })),
        answers: [[{ id: OTHER_ID }]],
      },
      { name: 'LiveActivitiesRepository.withLastUpdate', call: (db) => new LiveActivitiesRepository(db).withLastUpdate(ID, 100) },
      { name: 'LiveActivitiesRepository.findUpdate', call: (db) => new LiveActivitiesRepository(db).findUpdate(ID, 'activity-1', OTHER_ID) },
      { name: 'LiveActivitiesRepository.insertChannel', call: (db) => new LiveActivitiesRepository(db).insertChannel(ID, 'channel-1', 'none') },
      { name: 'LiveActivitiesRepository.channels', call: (db) => new LiveActivitiesRepository(db).channels(ID) },
      { name: 'LiveActivitiesRepository.findChannel', call: (db) => new LiveActivitiesRepository(db).findChannel(ID, 'channel-1') },
      { name: 'LiveActivitiesRepository.deleteChannel', call: (db) => new LiveActivitiesRepository(db).deleteChannel(ID, 'channel-1') },
    ],
  },
  {
    file: 'live-activity-updates.repository.sql',
    cases: [
      {
        name: 'LiveActivityUpdatesRepository.locked',
        call: (db) =>
          new LiveActivityUpdatesRepository(db).locked(ID, async (update) => {
            await update.read(ID);
            await update.record(ID, { status: 'accepted', reason: null, attempts: 1, sent: true, endActivity: null });
          }),
      },
      { name: 'LiveActivityUpdatesRepository.owed', call: (db) => new LiveActivityUpdatesRepository(db).owed(5_000, 1000, 'pending') },
    ],
  },
  {
    file: 'retention.repository.sql',
    cases: [
      { name: 'RetentionRepository.partitions', call: (db) => new RetentionRepository(db).partitions('deliveries') },
      { name: 'RetentionRepository.createPartition', call: (db) => new RetentionRepository(db).createPartition('deliveries', WEEK.name, WEEK.from, WEEK.to) },
      { name: 'RetentionRepository.weekHolds', call: (db) => new RetentionRepository(db).weekHolds(WEEK, AT) },
      {
        name: 'RetentionRepository.dropWeek',
        call: (db) => new RetentionRepository(db).dropWeek(WEEK, AT),
        answers: [[], [], [], [], [{ notifications: 0, held: 0 }]],
      },
      { name: 'RetentionRepository.deleteUncovered', call: (db) => new RetentionRepository(db).deleteUncovered(AT, [WEEK]) },
      { name: 'RetentionRepository.expiredInWeek', call: (db) => new RetentionRepository(db).expiredInWeek(WEEK, AT, 100) },
      { name: 'RetentionRepository.deleteRows', call: (db) => new RetentionRepository(db).deleteRows('deliveries', ID, 1000) },
      { name: 'RetentionRepository.deleteFinishedWebhookMessages', call: (db) => new RetentionRepository(db).deleteFinishedWebhookMessages(AT, 1000) },
      { name: 'RetentionRepository.deleteMarketingReceipts', call: (db) => new RetentionRepository(db).deleteMarketingReceipts(AT, 1000) },
      { name: 'RetentionRepository.deleteNotification', call: (db) => new RetentionRepository(db).deleteNotification(ID) },
    ],
  },
  {
    file: 'sweeper.repository.sql',
    cases: [
      { name: 'SweeperRepository.unfannedNotifications', call: (db) => new SweeperRepository(db).unfannedNotifications(60_000, 100) },
      { name: 'SweeperRepository.resetStuck', call: (db) => new SweeperRepository(db).resetStuck(60) },
      { name: 'SweeperRepository.overdueBatches', call: (db) => new SweeperRepository(db).overdueBatches(60, 100) },
      { name: 'SweeperRepository.purgeIdempotencyKeys', call: (db) => new SweeperRepository(db).purgeIdempotencyKeys() },
    ],
  },
  {
    file: 'installations.repository.sql',
    cases: [
      { name: 'InstallationsRepository.find', call: (db) => new InstallationsRepository(db).find(ID, 'device-1') },
      { name: 'InstallationsRepository.findByUser', call: (db) => new InstallationsRepository(db).findByUser(ID, 'user-1', 20) },
      { name: 'InstallationsRepository.countByApp', call: (db) => new InstallationsRepository(db).countByApp() },
      { name: 'InstallationsRepository.browse', call: (db) => new InstallationsRepository(db).browse(ID, null, '', 50, AT) },
      { name: 'InstallationsRepository.browse (filter)', call: (db) => new InstallationsRepository(db).browse(ID, FILTER, 'device-1', 50, AT) },
      { name: 'InstallationsRepository.platformOf', call: (db) => new InstallationsRepository(db).platformOf(ID, 'device-1') },
      {
        name: 'InstallationsRepository.update',
        call: (db) =>
          new InstallationsRepository(db).update(ID, 'device-1', {
            setUserId: false,
            userId: null,
            permission: null,
            device: null,
            pushToken: null,
            webPushSubscription: null,
            tags: null,
            badge: null,
            properties: null,
            replaceProperties: false,
            liveActivityStartTokens: null,
          }),
      },
      {
        name: 'InstallationsRepository.create',
        call: (db) =>
          new InstallationsRepository(db).create(ID, 'device-1', {
            platform: 'ios',
            pushToken: 'token',
            webPushSubscription: null,
            device: '{}',
            userId: null,
            permission: 'unknown',
            tags: [],
            badge: null,
            properties: '{}',
            liveActivityStartTokens: '{}',
          }),
      },
      { name: 'InstallationsRepository.softDelete', call: (db) => new InstallationsRepository(db).softDelete(ID, 'device-1') },
    ],
  },
  {
    file: 'delivery-trace.repository.sql',
    cases: [
      { name: 'DeliveryTraceRepository.notification', call: (db) => new DeliveryTraceRepository(db).notification(ID, OTHER_ID) },
      {
        name: 'DeliveryTraceRepository.page',
        call: (db) =>
          new DeliveryTraceRepository(db).page({ notificationId: ID, startedAt: AT.toISOString(), after: null, status: null, scanLimit: 10_000, rows: 100 }),
      },
    ],
  },
  {
    file: 'notifications.repository.sql',
    cases: [
      { name: 'NotificationsRepository.insert', call: (db) => new NotificationsRepository(db).insert(NOTIFICATION) },
      {
        // A small send (docs/api.md#small-sends): stored with its rows by the fan-out's chunk statement (FanOutRepository.storeSmallSend).
        name: 'NotificationsRepository.insert, with a small send',
        call: (db) => new NotificationsRepository(db).insert(NOTIFICATION, storeSmallSend(db)),
        answers: [[{ ...chunkDone, id: ID }]],
      },
      { name: 'NotificationsRepository.insert, under a key', call: (db) => new NotificationsRepository(db).insert(NOTIFICATION, undefined, 'key') },
      {
        name: 'NotificationsRepository.insert, with a small send, under a key',
        call: (db) => new NotificationsRepository(db).insert(NOTIFICATION, storeSmallSend(db), 'key'),
        answers: [[{ ...chunkDone, id: ID }]],
      },
      {
        name: 'NotificationsRepository.completeIdempotencyKey',
        call: (db) => new NotificationsRepository(db).completeIdempotencyKey(OTHER_ID, 'key', 202, '{}'),
      },
      { name: 'NotificationsRepository.find', call: (db) => new NotificationsRepository(db).find(OTHER_ID, ID) },
      { name: 'NotificationsRepository.cancel', call: (db) => new NotificationsRepository(db).cancel(OTHER_ID, ID), answers: [[{ id: ID }]] },
      { name: 'NotificationsRepository.list', call: (db) => new NotificationsRepository(db).list(OTHER_ID, 50, null, 'sale') },
      { name: 'NotificationsRepository.countSince', call: (db) => new NotificationsRepository(db).countSince(AT) },
      { name: 'NotificationsRepository.lastForInstallation', call: (db) => new NotificationsRepository(db).lastForInstallation(OTHER_ID, ID, 200) },
      {
        name: 'NotificationsRepository.claimIdempotencyKey',
        call: (db) => new NotificationsRepository(db).claimIdempotencyKey(OTHER_ID, 'key', 'hash', 30, 24),
      },
      { name: 'NotificationsRepository.findIdempotencyKey', call: (db) => new NotificationsRepository(db).findIdempotencyKey(OTHER_ID, 'key') },
      { name: 'NotificationsRepository.releaseIdempotencyKey', call: (db) => new NotificationsRepository(db).releaseIdempotencyKey(OTHER_ID, 'key') },
      {
        name: 'NotificationsRepository.recordEvent (opened)',
        call: (db) => new NotificationsRepository(db).recordEvent(OTHER_ID, ID, 'device-1', 'opened', AT),
        answers: [[{}]],
      },
    ],
  },
  {
    file: 'webhooks.repository.sql',
    cases: [
      {
        name: 'WebhooksRepository.insert',
        call: (db) => new WebhooksRepository(db).insert(ID, OTHER_ID, 'https://example.com/hook', ['notification.completed'], 'v1:sealed'),
      },
      { name: 'WebhooksRepository.list', call: (db) => new WebhooksRepository(db).list(OTHER_ID) },
      { name: 'WebhooksRepository.delete', call: (db) => new WebhooksRepository(db).delete(ID) },
      {
        name: 'WebhooksRepository.resealAll',
        call: (db) => new WebhooksRepository(db).resealAll(() => 'v1:new'),
        answers: [[{ id: ID, secret_enc: 'v1:old' }]],
      },
      { name: 'WebhooksRepository.dispatchDue', call: (db) => new WebhooksRepository(db).dispatchDue(100, 30) },
      { name: 'WebhooksRepository.startAttempt', call: (db) => new WebhooksRepository(db).startAttempt(ID, 30) },
      { name: 'WebhooksRepository.keepBody', call: (db) => new WebhooksRepository(db).keepBody(ID, '{}') },
      { name: 'WebhooksRepository.notification', call: (db) => new WebhooksRepository(db).notification(ID) },
      { name: 'WebhooksRepository.installation', call: (db) => new WebhooksRepository(db).installation(ID) },
      { name: 'WebhooksRepository.troubles', call: (db) => new WebhooksRepository(db).troubles(AT, 20) },
      { name: 'WebhooksRepository.delivered', call: (db) => new WebhooksRepository(db).delivered(ID) },
      { name: 'WebhooksRepository.failed', call: (db) => new WebhooksRepository(db).failed(ID, 'HTTP 500') },
      { name: 'WebhooksRepository.retryLater', call: (db) => new WebhooksRepository(db).retryLater(ID, 'HTTP 500', 60_000) },
    ],
  },
];
