import type { FilterNode } from '../common/audience-filter';
import type { ChunkParams } from '../delivery/fan-out/fan-out.repository';
import type { InstallationChanges, NewInstallation } from '../installations/installations.repository';
import type { NewLiveActivityUpdate } from '../live-activities/live-activities.repository';
import type { NewNotification } from '../common/notification';
import type { SmallSendsRepository } from '../delivery/small-sends/small-sends.repository';
import { RECIPIENT_KINDS, RecipientKind } from '../common/vocabulary';
import { GenerateSql, GenerateSqlCase } from './generate-sql';

/**
 * The values the SQL files' cases (`@GenerateSql`, src/queries/generate-sql.ts) call the
 * repositories with. Only their types come from the repositories, so importing this file loads
 * nothing else.
 */

export const ID = '00000000-0000-4000-8000-000000000001';
export const OTHER_ID = '00000000-0000-4000-8000-000000000002';
export const AT = new Date('2026-01-05T00:00:00.000Z');

/** A week of a partitioned table (delivery/retention). */
export const WEEK = { name: 'deliveries_p20260105', from: AT, to: new Date('2026-01-12T00:00:00.000Z') };

export const LIVE_UPDATE: NewLiveActivityUpdate = { event: 'update', content: '{"content_state":{}}', priority: 'normal', acceptedAt: AT };

export const NOTIFICATION: NewNotification = {
  id: ID,
  app_id: OTHER_ID,
  title: 'Title',
  body: 'Body',
  image_url: null,
  action_url: null,
  data: null,
  options: null,
  recipient_kind: 'user_ids',
  user_ids: ['user-1'],
  installation_ids: null,
  tags: null,
  recipient_filter: null,
  send_at: null,
  localizations: null,
};

export const CHUNK: ChunkParams = {
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

/** A filter with a condition of each kind of SQL (docs/api.md#audience-filters). */
export const FILTER: FilterNode = {
  and: [
    { field: 'platform', op: 'in', value: ['ios', 'android'] },
    { field: 'properties.plan', op: 'eq', value: 'pro' },
    { field: 'app_version', op: 'gte', value: '4.2' },
    { field: 'last_seen_at', op: 'within_last', value: '30d' },
    { or: [{ field: 'tags', op: 'contains', value: 'beta' }, { not: { field: 'language', op: 'ne', value: 'fr' } }] },
  ],
};

/** An installation's changes that change nothing (installations/installations.repository.ts). */
export const INSTALLATION_CHANGES: InstallationChanges = {
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
};

export const NEW_INSTALLATION: NewInstallation = {
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
};

/** A small send of one user id's chunk, as SmallSendsService.store runs it. */
export const SMALL_CHUNK: Parameters<SmallSendsRepository['store']>[1] = {
  appId: OTHER_ID,
  notificationId: ID,
  batchSize: 500,
  wanted: ['ios', 'android', 'web'],
  configured: ['ios'],
  silentless: [],
  batches: 0,
  canceled: false,
  due: { zones: [], dues: [], quietSkips: [], fallback: null, fallbackQuietSkip: false },
  cap: null,
  paceMs: null,
  advanced: 1,
  walked: false,
  countUsers: true,
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

/** nextChunk's cases, for each recipients kind: a chunk the fan-out goes on after, and the last one. */
export const NEXT_CHUNK_CASES: GenerateSqlCase[] = [
  // A walk's chunk of its full size, a filter's first of two: the fan-out goes on.
  ...RECIPIENT_KINDS.map((kind) => ({
    name: kind,
    params: [ID, CHUNK],
    answers: [locked(kind), ...staged(kind), [{ zone: 'Europe/Paris' }], [walked(kind) ? { ...chunkDone, found: CHUNK.chunkSize } : chunkDone]],
  })),
  // A walk's chunk that finds fewer than its size, a filter's that takes the rest of its audience, a list used up.
  ...RECIPIENT_KINDS.map((kind) => ({
    name: `the last, ${kind}`,
    params: [ID, { ...CHUNK, dueTimes: undefined }],
    answers: walked(kind) ? [locked(kind), [{ ...chunkDone, found: 0 }]] : kind === 'filter' ? [locked(kind, [], 1), [chunkDone]] : [locked(kind, [])],
  })),
];

/** Several cases of one method, in the order given. */
export const cases =
  (list: GenerateSqlCase[]): MethodDecorator =>
  (prototype, method, descriptor) => {
    // GenerateSql puts each case before the method's cases already there.
    for (const sqlCase of [...list].reverse()) GenerateSql(sqlCase)(prototype, method, descriptor);
  };
