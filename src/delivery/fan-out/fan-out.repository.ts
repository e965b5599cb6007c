import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { NotificationOptions } from '../../common/notification-options';
import { Platform, PLATFORMS } from '../../common/platform';
import { DeliveryStatus, Permission, RecipientKind, SkipReason } from '../../common/vocabulary';
import { FilterNode } from '../../common/audience-filter';
import { compileFilter, notSendable, recipientsPredicate } from '../../common/audience-sql';
import { minuteCountsInsert } from '../../common/minute-counts';
import { ChunkDueTimes } from './pacing';
import { preparedQuery } from '../../common/prepared-query';
import { pgError, UNIQUE_VIOLATION } from '../../common/pg-errors';
import { ownPartition } from '../deliver/deliveries.repository';

/**
 * The distinct users of the installations a notification ($1) has deliveries for, as `u.n`: a
 * fan-out's users, counted when it finishes (finish, finishSmallSend; docs/api.md#recipients).
 * Each row's user_id is its installation's when the fan-out found it, so the rows alone answer,
 * read in the notification's own partition (a join with `installations` cost a 100,000-row
 * broadcast 0.45 s of PostgreSQL: bench/README.md "CPU per delivery toward the bare client").
 */
const USERS_REACHED = `(SELECT count(DISTINCT d.user_id)::int AS n FROM deliveries d
             WHERE d.notification_id = $1 AND ${ownPartition('d', '$1')}) u`;

/** The live installations of the app ($1). */
const LIVE = `WHERE i.app_id = $1 AND i.deleted_at IS NULL`;
/** A walk's next chunk: after the cursor $q, in installation_id order (the unique (app_id, installation_id) index), $q+1 of them. */
const walk = (q: number) => `i.installation_id > $${q}::text ORDER BY i.installation_id LIMIT $${q + 1}`;

/** The `where` of the whole app's walk, with its parameters from $p: the cursor and the chunk size. */
export const walkAllTargets = (p: number) => `${LIVE} AND ${walk(p)}`;

/** A chunk's installations: SQL after `FROM installations i`, and its own parameters, numbered from $p. */
export interface ChunkTargets {
  where: string;
  params: unknown[];
}

/**
 * The installations one chunk covers, or null when a list is used up. Lists (user ids,
 * installation ids) are chunked by position in the stored list, a filter send by its audience's
 * staged chunks (stageAudience); tags and the whole app are walked in
 * installation_id order from the last one done (an empty cursor sorts before every id), which the
 * unique (app_id, installation_id) index serves, and for tags also the GIN index on tags (`tags &&
 * $p`), whichever the planner finds cheaper.
 */
function chunkTargets(n: LockedNotification, notificationId: string, chunkSize: number, p: number): ChunkTargets | null {
  switch (n.kind) {
    case 'user_ids':
    case 'installation_ids':
      return n.ids && n.ids.length > 0 ? { where: `${LIVE} AND ${recipientsPredicate(n.kind, p)}`, params: [n.ids] } : null;
    case 'tags':
      return { where: `${LIVE} AND ${recipientsPredicate(n.kind, p)} AND ${walk(p + 1)}`, params: [n.tags, n.cursor ?? '', chunkSize] };
    case 'filter':
      return n.position < n.audience_chunks!
        ? {
            where: `${LIVE} AND i.id = ANY((SELECT a.installation_ids FROM fanout_audiences a WHERE a.notification_id = $${p}::uuid AND a.chunk = $${p + 1}::int)::uuid[])`,
            params: [notificationId, n.position],
          }
        : null;
    case 'all':
      return { where: walkAllTargets(p), params: [n.cursor ?? '', chunkSize] };
  }
}

/**
 * The words the chunk statement writes and compares, as its parameters from $20 in this order (the vocabulary
 * reaches SQL as parameters, docs/architecture.md "SQL files"); the chunk's targets follow them.
 */
const WORDS = [
  SkipReason.Canceled,
  SkipReason.PlatformExcluded,
  SkipReason.SilentNotSupported,
  SkipReason.NoCredentials,
  SkipReason.PermissionDenied,
  SkipReason.Invalidated,
  SkipReason.NoToken,
  SkipReason.FrequencyCapped,
  SkipReason.QuietHours,
  'skipped',
  'scheduled',
  'pending',
  'denied',
] as const satisfies readonly (SkipReason | DeliveryStatus | Permission)[];
const FIRST_WORD_PARAM = 20;
const word = (w: (typeof WORDS)[number]) => `$${FIRST_WORD_PARAM + WORDS.indexOf(w)}::text`;
export const FIRST_TARGET_PARAM = FIRST_WORD_PARAM + WORDS.length;

const skip = notSendable(word('denied'));

/**
 * A marketing send's frequency cap (docs/api.md#pacing): the installation already has $12 marketing
 * messages sent or in flight within the last $13 hours. Counted on the marketing_receipts key
 * (installation_id, accepted_at): one index range scan per installation, stopped at the cap.
 */
const capped = `$12::int IS NOT NULL AND (SELECT count(*) FROM (
          SELECT 1 FROM marketing_receipts r
          WHERE r.installation_id = i.id AND r.accepted_at > now() - make_interval(hours => $13::int) LIMIT $12::int) r) >= $12::int`;

/** The chunk's installations, each with its skip reason (docs/api.md#delivery: the first that applies) or null. */
const chosen = (where: string) => `chosen AS (
    SELECT i.id, i.user_id, i.platform, i.installation_id, i.device ->> 'timezone' AS zone,
      CASE
        WHEN $7::boolean THEN ${word(SkipReason.Canceled)}
        WHEN NOT (i.platform = ANY($4::text[])) THEN ${word(SkipReason.PlatformExcluded)}
        WHEN i.platform = ANY($11::text[]) THEN ${word(SkipReason.SilentNotSupported)}
        WHEN NOT (i.platform = ANY($5::text[])) THEN ${word(SkipReason.NoCredentials)}
        WHEN ${skip.denied} THEN ${word(SkipReason.PermissionDenied)}
        WHEN ${skip.invalidated} THEN ${word(SkipReason.Invalidated)}
        WHEN ${skip.noToken} THEN ${word(SkipReason.NoToken)}
        WHEN ${capped} THEN ${word(SkipReason.FrequencyCapped)}
      END AS skip_reason
    FROM installations i
    ${where}
  )`;

/**
 * Each one's due time: its zone's in $8/$9 (null: now), else $10; skipped as QuietHours when its zone's quiet
 * hours outlast its ttl ($14 per zone, else $15).
 */
const targets = `targets AS (
    SELECT c.id, c.user_id, c.platform, c.installation_id, CASE WHEN z.zone IS NULL THEN $10::timestamptz ELSE z.due END AS due,
      COALESCE(c.skip_reason, CASE WHEN COALESCE(z.quiet_skip, $15::boolean) THEN ${word(SkipReason.QuietHours)} END) AS skip_reason
    FROM chosen c LEFT JOIN unnest($8::text[], $9::timestamptz[], $14::boolean[]) AS z(zone, due, quiet_skip) ON z.zone = c.zone
  )`;

/** Those to send, numbered into batches of $3 per due time. */
const numbered = `numbered AS (
    SELECT t.*, CASE WHEN t.skip_reason IS NULL
      THEN (row_number() OVER (PARTITION BY t.skip_reason IS NULL, t.due ORDER BY t.platform, t.id) - 1) / $3 END AS local_batch
    FROM targets t
  )`;

const dueGroups = `due_groups AS (
    SELECT due, max(local_batch) + 1 AS batches FROM numbered WHERE skip_reason IS NULL GROUP BY due
  )`;

/** Batch numbers continue from $6, the notification's batches so far, one due time after the other. */
const groupOffsets = `group_offsets AS (
    SELECT due, batches, (sum(batches) OVER (ORDER BY due NULLS FIRST) - batches)::int AS first_batch FROM due_groups
  )`;

/**
 * Each one's batch, and for a throttled send (docs/api.md#pacing) its batch's turn: batch k is due
 * no earlier than $16 milliseconds times k after the processing start, so the batches follow one
 * another at the send's rate (the delivery jobs' pace limit holds them to it when they run late).
 */
const placed = (startedAt: string) => `placed AS (
    SELECT n.id, n.platform, n.user_id, n.skip_reason, b.batch,
      CASE WHEN $16::float8 IS NULL OR n.skip_reason IS NOT NULL THEN n.due
        ELSE GREATEST(n.due, ${startedAt} + make_interval(secs => b.batch * $16::float8 / 1000)) END AS due
    FROM numbered n LEFT JOIN group_offsets g ON n.skip_reason IS NULL AND g.due IS NOT DISTINCT FROM n.due,
      LATERAL (SELECT COALESCE($6 + g.first_batch + n.local_batch, -1) AS batch) b
  )`;

/**
 * The rows, each installation once per notification. Inserted without `ON CONFLICT`, which would
 * cost every row a probe of the primary key before its insert
 * (docs/decisions/0013-fan-out-chunks-insert-without-on-conflict.md): only a chunk of user ids
 * can meet an installation an earlier chunk wrote (one whose user changed between two chunks),
 * and such a chunk is run again `relisted`, skipping those rows.
 */
const inserted = (relisted: boolean, startedAt: string) => `inserted AS (
    INSERT INTO deliveries (notification_id, installation_id, notification_started_at, platform, user_id, batch, status, reason, scheduled_for, next_attempt_at)
    SELECT $2, n.id, ${startedAt}, n.platform, n.user_id, n.batch,
      CASE WHEN n.skip_reason IS NOT NULL THEN ${word('skipped')} WHEN n.due > now() THEN ${word('scheduled')} ELSE ${word('pending')} END,
      n.skip_reason, n.due, CASE WHEN n.skip_reason IS NULL AND n.due > now() THEN n.due END
    FROM placed n${relisted ? '\n    ON CONFLICT (notification_id, installation_id, notification_started_at) DO NOTHING' : ''}
    RETURNING installation_id, status, batch, next_attempt_at, platform, reason
  )`;

/** A capped send's rows to send take their place under the cap now, in flight (the outcome gives back a failed or skipped one); a small send is never capped. */
const claimedReceipts = `claimed_receipts AS (
    INSERT INTO marketing_receipts (installation_id, accepted_at, notification_id)
    SELECT installation_id, now(), $2 FROM inserted WHERE $12::int IS NOT NULL AND status <> ${word('skipped')}
  )`;

/** The rows it skipped, in the per-minute counters the dashboard draws (common/minute-counts.ts). */
const perMinute = `per_minute AS (
    ${minuteCountsInsert(`SELECT $2::uuid, status FROM inserted WHERE status = ${word('skipped')}`)}
  )`;

/** What the chunk found and wrote. */
const counts = `counts AS (
    SELECT
      (SELECT count(*) FROM chosen)::int AS found,
      (SELECT max(installation_id) FROM chosen) AS last_installation_id,
      (SELECT count(DISTINCT user_id) FROM chosen)::int AS users,
      (SELECT count(*) FROM inserted)::int AS installations,
      (SELECT count(*) FROM inserted WHERE status = ${word('skipped')})::int AS skipped,
      (SELECT COALESCE(sum(batches), 0) FROM due_groups)::int AS batches_used
  )`;

/**
 * The fan-out's progress and the notification's counters, moved by the same statement: $17
 * positions done (a list chunk's ids, a filter's staged chunk, none for a walk), the walk's cursor
 * to the chunk's last installation when $18, the chunk's users counted when $19 (users of one chunk
 * of user ids are not in another; a walk's installations may share users, counted at its finish).
 */
const progress = `progress AS (
    UPDATE notifications n SET fanout_position = n.fanout_position + $17::int, fanout_batches = n.fanout_batches + c.batches_used,
      stat_users = n.stat_users + CASE WHEN $19::boolean THEN c.users ELSE 0 END,
      stat_installations = n.stat_installations + c.installations, stat_skipped = n.stat_skipped + c.skipped,
      fanout_cursor = CASE WHEN $18::boolean THEN COALESCE(c.last_installation_id, n.fanout_cursor) ELSE n.fanout_cursor END
    FROM counts c
    WHERE n.id = $2
  )`;

/** What the chunk wrote, with the notification's row when the statement stored it (`stored`). */
const report = (stored: boolean) => `SELECT c.*,${stored ? ' stored.*,' : ''}
    (SELECT COALESCE(jsonb_agg(s), '[]'::jsonb) FROM (
       SELECT platform, reason, count(*)::int AS count FROM inserted WHERE status = ${word('skipped')} GROUP BY platform, reason) s) AS skipped_by_reason,
    (SELECT COALESCE(json_agg(json_build_object('batch', batch, 'due', due)), '[]')
       FROM (SELECT batch, max(next_attempt_at) AS due FROM inserted WHERE status <> ${word('skipped')} GROUP BY batch) b) AS batches
  FROM counts c${stored ? ', stored' : ''}`;

/**
 * A notification stored by NotificationsRepository's INSERT: its columns, their values as
 * placeholders numbered from `first`, their parameters in that order, and the columns it answers.
 */
export interface NotificationInsert {
  columns: string;
  values: (first: number) => string;
  params: unknown[];
  returning: string;
  /** A CTE written with it (an Idempotency-Key's link), parameters numbered from `first` after its own; `name` tells its statement apart. */
  also?: { name: string; cte: (first: number) => string; params: unknown[] };
}

/**
 * A small send's notification (docs/api.md#small-sends), inserted by the statement that writes its
 * rows: started now, with the progress and counters `progress` would move, taken from `counts`.
 * Each delivery row's notification_started_at is the same now() (the transaction's start), and
 * their foreign keys are checked at the end of the statement, once the notification is there.
 */
const stored = (insert: NotificationInsert, first: number) => `stored AS (
    INSERT INTO notifications (${insert.columns}, processing_started_at, fanout_position, fanout_batches, fanout_cursor, stat_users, stat_installations, stat_skipped)
    SELECT ${insert.values(first)}, now(), $17::int, c.batches_used, CASE WHEN $18::boolean THEN c.last_installation_id END,
      CASE WHEN $19::boolean THEN c.users ELSE 0 END, c.installations, c.skipped
    FROM counts c
    RETURNING ${insert.returning}
  )${insert.also ? `,\n  ${insert.also.cte(first + insert.params.length)}` : ''}`;

/** The notification's processing start, its rows' partition key: read from its row, or now() when the statement stores it. */
const STARTED_AT = '(SELECT processing_started_at FROM notifications WHERE id = $2)';

/**
 * One chunk of targets: every installation becomes a delivery row in one statement, inside
 * PostgreSQL (nothing is read into the worker): skipped with its reason (docs/api.md#notification-resource; every
 * one `Canceled` once the notification is cancelled), or numbered into delivery batches by due
 * time, `scheduled` until then (a local time, docs/api.md#scheduling) or `pending`. Each installation's
 * due time is its zone's in $8/$9 (computed by the worker from Intl), else $10 (UTC's for a
 * local time; `send_at` or null otherwise). Batches never mix due times, so one delayed job per
 * due time and batch sends them. Each row carries the notification's processing_started_at, its
 * partition key (delivery.entity.ts), copied in SQL: through JavaScript's Date it would lose its
 * microseconds and no longer match; and the installation's user_id as it is now, for the delivery
 * trace (docs/api.md#delivery-trace). The skipped rows are added to the per-minute counters, and the
 * fan-out's progress and the notification's counters move in the same statement (`progress`).
 * `relisted`: the chunk's installations may have rows already, which it skips (`inserted`).
 * `store`: the statement inserts the notification too (a small send's, `stored`), its parameters
 * after the chunk's. Its parameters: fanOutChunkParams.
 */
export const fanOutChunkSql = (where: string, relisted: boolean, store?: { insert: NotificationInsert; first: number }) => `
  WITH ${chosen(where)},
  ${targets},
  ${numbered},
  ${dueGroups},
  ${groupOffsets},
  ${placed(store ? 'now()' : STARTED_AT)},
  ${inserted(relisted, store ? 'now()' : STARTED_AT)},${
    store
      ? ''
      : `
  ${claimedReceipts},`
  }
  ${perMinute},
  ${counts},
  ${store ? stored(store.insert, store.first) : progress}
  ${report(store !== undefined)}`;

/** What fanOutChunkSql needs besides the chunk's targets (`target`, see targetParams). */
export interface ChunkStatementParams {
  appId: string;
  notificationId: string;
  batchSize: number;
  wanted: readonly Platform[];
  configured: readonly Platform[];
  /** Platforms that cannot take this send silently (docs/api.md#silent-sends): skipped. */
  silentless: readonly Platform[];
  /** The notification's batches so far. */
  batches: number;
  canceled: boolean;
  due: ChunkDueTimes;
  /** The frequency cap of a marketing send, else null. */
  cap: { max: number; hours: number } | null;
  /** A throttled send's milliseconds between batches, else null. */
  paceMs: number | null;
  /** Positions the chunk completes (`fanout_position`): a list chunk's ids, a filter's staged chunk, 0 for a walk. */
  advanced: number;
  /** A walk (tags, the whole app): its cursor moves to the chunk's last installation. */
  walked: boolean;
  /** The chunk's users are added to the notification's (a chunk of user ids). */
  countUsers: boolean;
  target: unknown[];
}

/** The parameters of fanOutChunkSql, in its order. */
export const fanOutChunkParams = (p: ChunkStatementParams): unknown[] => [
  p.appId,
  p.notificationId,
  p.batchSize,
  p.wanted,
  p.configured,
  p.batches,
  p.canceled,
  p.due.zones,
  p.due.dues,
  p.due.fallback,
  p.silentless,
  p.cap?.max ?? null,
  p.cap?.hours ?? null,
  p.due.quietSkips,
  p.due.fallbackQuietSkip,
  p.paceMs,
  p.advanced,
  p.walked,
  p.countUsers,
  ...WORDS,
  ...p.target,
];

/** The time zones (device.timezone) of a chunk's installations: what its due times need. */
const chunkZonesSql = (where: string) => `
  SELECT DISTINCT zone FROM (SELECT i.device ->> 'timezone' AS zone FROM installations i ${where}) z
  WHERE zone IS NOT NULL`;

/**
 * A small send's storing (docs/api.md#small-sends): the notification `insert` describes, with its
 * rows, in one statement; answers the stored row (SmallSends.plan gives it).
 */
export type StoreSmallSend = <Row>(insert: NotificationInsert) => Promise<Row>;

/** A notification as its fan-out begins. */
export interface StartedRow {
  app_id: string;
  /** The send's options; of these, the fan-out reads `platforms` (absent: every platform) and `local_time`. */
  options: NotificationOptions | null;
  /** A send without `notification` (docs/api.md#silent-sends). */
  silent: boolean;
  fanout_position: number;
  fanned_out_at: Date | null;
  /** The time local times count from: send_at, or the acceptance when later or absent. */
  reference_at: Date;
  send_at: Date | null;
  /** When processing began: a throttled send's turns count from it. */
  processing_started_at: Date;
  /** The app's frequency cap and quiet hours (docs/api.md#pacing), null when off. */
  frequency_cap_max: number | null;
  frequency_cap_hours: number | null;
  quiet_hours_start: string | null;
  quiet_hours_end: string | null;
}

/** Why start() did not start: the notification does not exist, or is held until its send_at. */
export type NotStarted = { missing: true } | { missing: false; dueAt: Date };

/** A delivery batch the fan-out filled, and when it is due (null: now). */
export interface FilledBatch {
  batch: number;
  due: Date | null;
}

/** What the fan-out of one chunk wrote. */
export interface ChunkResult {
  /** Users counted by this chunk: its users for a list of user ids, else 0 (a walk counts them when it finishes). */
  users: number;
  installations: number;
  /** Batches that received rows to send. */
  batches: FilledBatch[];
  /** The rows skipped, by platform and reason (for the skip metric). */
  skipped: { platform: Platform; reason: SkipReason; count: number }[];
  /** The notification's batches so far, this chunk's included: the number of its next batch. */
  batchesSoFar: number;
  /** The notification was cancelled: every row of the chunk was skipped as Canceled. */
  canceled: boolean;
  /** The chunk ended the walk, and the fan-out is marked done. */
  finished: boolean;
}

/** The one row fanOutChunkSql returns. */
interface ChunkRow {
  found: number;
  last_installation_id: string | null;
  users: number;
  installations: number;
  skipped: number;
  skipped_by_reason: ChunkResult['skipped'];
  batches_used: number;
  batches: { batch: number; due: string | null }[];
}

/**
 * The platforms a send targets: `options.platforms`, else every one; a Live Activity start goes to
 * iOS alone, the others are skipped as PlatformExcluded (docs/api.md#live-activity-starts).
 */
export const wantedPlatforms = (options: NotificationOptions | null): Platform[] =>
  (options?.platforms ?? PLATFORMS).filter((platform) => !options?.live_activity || platform === 'ios');

/** What a chunk needs besides the notification: who may be sent to, how rows are batched, when they are due. */
export interface ChunkParams {
  appId: string;
  /** List entries (user ids, installation ids), or installations for tags and all, per chunk. */
  chunkSize: number;
  batchSize: number;
  /** Platforms the send targets. */
  wanted: readonly Platform[];
  /** Platforms the app has credentials for. */
  configured: Platform[];
  /** Platforms skipped as SilentNotSupported. */
  silentless: readonly Platform[];
  /** Due times for the chunk's zones (a local-time send, or quiet hours), computed from them; absent: `fixedDue` for all. */
  dueTimes?: (zones: string[]) => ChunkDueTimes;
  fixedDue: Date | null;
  /** The frequency cap of a marketing send, else null. */
  cap: { max: number; hours: number } | null;
  /** A throttled send's milliseconds between batches, else null. */
  paceMs: number | null;
}

interface LockedNotification {
  kind: RecipientKind;
  position: number;
  batches: number;
  fanned_out_at: Date | null;
  cursor: string | null;
  canceled: boolean;
  tags: string[] | null;
  ids: string[] | null;
  filter: FilterNode | null;
  /** Read for a filter's time conditions; null for a small send, which has none. */
  started_at: Date | null;
  /** A filter send's staged chunks (stageAudience), of which `position` are done; null before, and for the other kinds. */
  audience_chunks: number | null;
}

/** A small send's ids (docs/api.md#small-sends), known before its transaction begins. */
export interface SmallSendRecipients {
  kind: Extract<RecipientKind, 'user_ids' | 'installation_ids'>;
  ids: string[];
}

/** Every installation of a chunk due at `fixedDue`: a send without local times or quiet hours, or a cancelled one. */
const NO_ZONES = (params: ChunkParams): ChunkDueTimes => ({ zones: [], dues: [], quietSkips: [], fallback: params.fixedDue, fallbackQuietSkip: false });

/** fanOutChunkSql's parameters for the chunk of `n` at `target`. */
function chunkValues(n: LockedNotification, notificationId: string, params: ChunkParams, due: ChunkDueTimes, target: ChunkTargets): unknown[] {
  const walked = n.kind === 'tags' || n.kind === 'all';
  return fanOutChunkParams({
    appId: params.appId,
    notificationId,
    batchSize: params.batchSize,
    wanted: params.wanted,
    configured: params.configured,
    silentless: params.silentless,
    batches: n.batches,
    canceled: n.canceled,
    due,
    cap: params.cap,
    paceMs: params.paceMs,
    // Positions done: a list chunk's ids, a filter's staged chunk; a walk moves its cursor instead.
    advanced: n.kind === 'filter' ? 1 : walked ? 0 : n.ids!.length,
    walked,
    countUsers: n.kind === 'user_ids',
    target: target.params,
  });
}

/** What the chunk of `n` wrote, from the row fanOutChunkSql answered. */
const chunkResult = (n: LockedNotification, r: ChunkRow, finished: boolean): ChunkResult => ({
  finished,
  users: n.kind === 'user_ids' ? r.users : 0,
  installations: r.installations,
  batches: r.batches.map((b) => ({ batch: b.batch, due: b.due === null ? null : new Date(b.due) })),
  skipped: r.skipped_by_reason,
  batchesSoFar: n.batches + r.batches_used,
  canceled: n.canceled,
});

/**
 * The fan-out's statements on `notifications`, `deliveries` and `fanout_audiences`. Progress
 * (`fanout_position` for lists and a filter's staged chunks, `fanout_cursor` for walks) moves in
 * the same transaction as the rows it covers, so a fan-out killed mid-way continues where it
 * stopped and never counts an installation twice.
 */
@Injectable()
export class FanOutRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /**
   * Marks processing as started (once) when the notification is due (its send_at has come, or it
   * was cancelled), and reads where the fan-out stands.
   */
  async start(notificationId: string): Promise<StartedRow | NotStarted> {
    // TypeORM answers an UPDATE ... RETURNING with [rows, affected].
    const [[started]]: [StartedRow[], number] = await this.db.query(
      `UPDATE notifications n SET processing_started_at = COALESCE(n.processing_started_at, now())
       FROM apps a
       WHERE n.id = $1 AND a.id = n.app_id
         AND (n.send_at IS NULL OR n.send_at <= now() OR n.canceled_at IS NOT NULL OR n.processing_started_at IS NOT NULL)
       RETURNING n.app_id, n.options, n.title IS NULL AS silent, n.fanout_position, n.fanned_out_at, n.send_at, n.processing_started_at, GREATEST(n.created_at, n.send_at) AS reference_at,
         a.frequency_cap_max, a.frequency_cap_hours, a.quiet_hours_start, a.quiet_hours_end`,
      [notificationId],
    );
    if (started) return started;
    const [held]: { send_at: Date }[] = await this.db.query(`SELECT send_at FROM notifications WHERE id = $1`, [notificationId]);
    return held ? { missing: false, dueAt: held.send_at } : { missing: true };
  }

  /**
   * Fans out the next chunk in one transaction: its delivery rows, the progress and the
   * statistics. Null when there was nothing left (the notification is then marked fanned out,
   * with its users counted for the kinds other than user ids) or another fan-out had finished it.
   */
  async nextChunk(notificationId: string, params: ChunkParams): Promise<ChunkResult | null> {
    try {
      return await this.db.transaction((manager) => this.chunkIn(manager, notificationId, params, false));
    } catch (error) {
      // The chunk met a row an earlier chunk wrote (one of user ids may: `inserted`): rolled back, and once more skipping those.
      if (pgError(error).code !== UNIQUE_VIOLATION) throw error;
      return this.db.transaction((manager) => this.chunkIn(manager, notificationId, params, true));
    }
  }

  /**
   * Stores a small send (docs/api.md#small-sends) with its rows, in one statement: the
   * notification (`insert`, started now) and its one chunk (every id), its progress and counters in
   * its row. A prepared statement (one text per recipient kind, and with a key's link or without:
   * parsed and planned once per connection, bench/README.md "A burst of one-time codes"). The
   * finish is left to its batch's job (finishSmallSend), or to its fan-out job when it has no batch
   * (every installation skipped); the sweeper queues the fan-out job of one still unfinished should
   * Redis lose the add. Answers the stored row, and the chunk.
   */
  async storeSmallSend<Row>(
    insert: NotificationInsert,
    notificationId: string,
    params: ChunkParams,
    recipients: SmallSendRecipients,
  ): Promise<{ row: Row; chunk: ChunkResult }> {
    // Stored by this statement, so no one else sees it: its state is known, and there is nothing to lock.
    const fresh: LockedNotification = {
      kind: recipients.kind,
      position: 0,
      batches: 0,
      fanned_out_at: null,
      cursor: null,
      canceled: false,
      tags: null,
      ids: recipients.ids.slice(0, params.chunkSize),
      filter: null,
      started_at: null,
      audience_chunks: null,
    };
    const target = chunkTargets(fresh, notificationId, params.chunkSize, FIRST_TARGET_PARAM)!;
    const values = chunkValues(fresh, notificationId, params, NO_ZONES(params), target);
    const sql = fanOutChunkSql(target.where, false, { insert, first: values.length + 1 });
    const name = `store_small_${fresh.kind}${insert.also ? `_${insert.also.name}` : ''}`;
    const { rows } = await preparedQuery<ChunkRow & Row>(this.db, name, sql, [...values, ...insert.params, ...(insert.also?.params ?? [])]);
    const r = rows[0];
    return { row: r, chunk: chunkResult(fresh, r, false) };
  }

  private async chunkIn(manager: EntityManager, notificationId: string, params: ChunkParams, relisted: boolean): Promise<ChunkResult | null> {
    // The row lock serialises fan-outs of one notification, should two ever run, and a cancel.
    const [n]: LockedNotification[] = await manager.query(
      `SELECT recipient_kind AS kind, fanout_position AS position, fanout_batches AS batches, fanned_out_at,
         fanout_cursor AS cursor, canceled_at IS NOT NULL AS canceled, tags, recipient_filter AS filter, processing_started_at AS started_at,
         fanout_audience_chunks AS audience_chunks,
         CASE recipient_kind
           WHEN $3::text THEN user_ids[fanout_position + 1 : fanout_position + $2]
           WHEN $4::text THEN installation_ids[fanout_position + 1 : fanout_position + $2]
         END AS ids
       FROM notifications WHERE id = $1 FOR UPDATE`,
      [notificationId, params.chunkSize, 'user_ids' satisfies RecipientKind, 'installation_ids' satisfies RecipientKind],
    );
    if (n.fanned_out_at) return null;
    if (n.kind === 'filter' && n.audience_chunks === null) n.audience_chunks = await this.stageAudience(manager, notificationId, params, n);
    const target = chunkTargets(n, notificationId, params.chunkSize, FIRST_TARGET_PARAM);
    if (target === null) {
      await this.finish(manager, notificationId, n.kind);
      return null;
    }
    const due: ChunkDueTimes =
      params.dueTimes && !n.canceled
        ? params.dueTimes(
            (
              await manager.query<{ zone: string }[]>(chunkZonesSql(chunkTargets(n, notificationId, params.chunkSize, 2)!.where), [
                params.appId,
                ...target.params,
              ])
            ).map((z) => z.zone),
          )
        : NO_ZONES(params);
    // Capped sends of one app write their chunks one at a time, each counting the receipts the last one wrote.
    if (params.cap) await manager.query(`SELECT pg_advisory_xact_lock(hashtext('frequency-cap:' || $1::text))`, [params.appId]);
    const [r] = await manager.query<[ChunkRow]>(fanOutChunkSql(target.where, relisted), chunkValues(n, notificationId, params, due, target));
    if (n.kind === 'filter') await this.unstage(manager, notificationId, n.position);
    // A walk's chunk short of its size found every match left, and the walk is done.
    const walked = n.kind === 'tags' || n.kind === 'all';
    const finished = walked ? r.found < params.chunkSize : n.kind === 'filter' && n.position + 1 >= n.audience_chunks!;
    if (finished) await this.finish(manager, notificationId, n.kind);
    return chunkResult(n, r, finished);
  }

  /**
   * A filter send's audience (docs/api.md#audience-filters): the app's live installations its
   * filter selects now, with whatever plan the planner finds cheapest for the whole filter, staged
   * in fanout_audiences as the chunks of the fan-out (`chunkSize` ids each, numbered from 0); how
   * many chunks, written to notifications.fanout_audience_chunks by the same statement. Each chunk
   * then takes its row, so the filter is evaluated once, not once per chunk: a chunk that took the
   * next matches in installation_id order would read all of the filter's candidates again each
   * time (chunks times candidates), and walking the app in windows reads every installation of the
   * app (bench/README.md "Audiences"). The matches go through a temporary table, dropped at commit,
   * because a `CREATE TABLE AS` may read with PostgreSQL's parallel workers and an `INSERT ...
   * SELECT` may not. `within_last` counts from the processing start.
   */
  private async stageAudience(manager: EntityManager, notificationId: string, params: ChunkParams, n: LockedNotification): Promise<number> {
    const filter = compileFilter(n.filter!, 3, n.started_at!);
    await manager.query(
      `CREATE TEMPORARY TABLE fanout_matched ON COMMIT DROP AS
       SELECT i.id, (row_number() OVER () - 1) / $2 AS chunk
       FROM installations i WHERE i.app_id = $1 AND i.deleted_at IS NULL AND ${filter.sql}`,
      [params.appId, params.chunkSize, ...filter.params],
    );
    const [{ chunks }]: { chunks: number }[] = await manager.query(
      `WITH staged AS (
         INSERT INTO fanout_audiences (notification_id, chunk, installation_ids)
         SELECT $1, chunk, array_agg(id) FROM fanout_matched GROUP BY chunk
         RETURNING 1
       ), sized AS (
         UPDATE notifications SET fanout_audience_chunks = (SELECT count(*) FROM staged) WHERE id = $1
         RETURNING fanout_audience_chunks)
       SELECT fanout_audience_chunks AS chunks FROM sized`,
      [notificationId],
    );
    return chunks;
  }

  /**
   * Marks a small send's fan-out done (docs/api.md#small-sends), once its batch was delivered: the
   * API wrote every row, and no fan-out job follows it. Counts its users as finish() does. True
   * when this call marked it; false when it was done already (another of its batches, a fan-out job
   * the sweeper queued, a cancel) or is not a notification.
   */
  async finishSmallSend(notificationId: string): Promise<boolean> {
    // TypeORM answers an UPDATE ... RETURNING with [rows, affected].
    const [marked]: [unknown[], number] = await this.db.query(
      `UPDATE notifications n SET fanned_out_at = now(),
         target_users = CASE WHEN n.recipient_kind = $2 THEN n.target_users ELSE u.n END,
         stat_users = CASE WHEN n.recipient_kind = $2 THEN n.stat_users ELSE u.n END
       FROM ${USERS_REACHED}
       WHERE n.id = $1 AND n.fanned_out_at IS NULL
       RETURNING n.id`,
      [notificationId, 'user_ids' satisfies RecipientKind],
    );
    return marked.length > 0;
  }

  /** Deletes a filter send's staged chunk once its deliveries are written. */
  private async unstage(manager: EntityManager, notificationId: string, chunk: number): Promise<void> {
    await manager.query(`DELETE FROM fanout_audiences WHERE notification_id = $1 AND chunk = $2`, [notificationId, chunk]);
  }

  /**
   * Marks the fan-out done. For the kinds other than user ids, target_users and statistics.users
   * are the distinct users of the installations it found (docs/api.md#recipients), counted here, in
   * PostgreSQL, once every row is written.
   */
  private async finish(manager: EntityManager, notificationId: string, kind: RecipientKind): Promise<void> {
    if (kind === 'user_ids') {
      await manager.query(`UPDATE notifications SET fanned_out_at = now() WHERE id = $1`, [notificationId]);
      return;
    }
    await manager.query(
      `UPDATE notifications SET fanned_out_at = now(), target_users = u.n, stat_users = u.n
       FROM ${USERS_REACHED}
       WHERE id = $1`,
      [notificationId],
    );
  }
}
