import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { NotificationOptions } from '../../common/notification-options';
import { NotificationFailureReason, RECIPIENT_KINDS, RecipientKind } from '../../common/vocabulary';
import { AudienceTimedOutError } from '../../common/errors';
import { isQueryCanceled, statementTimeout } from '../../common/sql/bounded';
import { compile, valuesOf } from '../../common/sql/named';
import { FilterNode } from '../../common/audience-filter';
import { compileFilter, recipientsPredicate, topicSql } from '../../common/audience-sql';
import { ChunkDueTimes } from './pacing';
import { pgError, UNIQUE_VIOLATION } from '../../common/pg-errors';
import { ownPartition } from '../../common/sql/own-partition';
import { Platform, PushProviderName } from '../../common/platform';
import {
  ChunkResult,
  chunkResult,
  ChunkRow,
  chunkStatement,
  chunkStatementValues,
  ChunkTargetValues,
  ChunkVariants,
  chunkZonesStatement,
  chunkZonesValues,
  FilledBatch,
} from './chunk-statement';
import { GenerateSql, GenerateSqlCase, SqlFile } from '../../queries/generate-sql';
import { AT, FILTER, ID, OTHER_ID, cases } from '../../queries/fixtures';
import type { StoredVariant } from '../../common/variants';

export type { ChunkResult, FilledBatch };
export { wantedPlatforms } from './chunk-statement';

/** A send that failed before any delivery: fanned out to no one. */
const FAIL = compile(`UPDATE notifications SET failure_reason = :reason, fanned_out_at = now(), fanout_audience_chunks = 0
  WHERE id = :notification_id AND fanned_out_at IS NULL
  RETURNING id`);

/** A fan-out's distinct users as `u.n` (docs/api.md#recipients), from $1's rows in its own partition. */
const USERS_REACHED = `(SELECT count(DISTINCT d.user_id)::int AS n FROM deliveries d
             WHERE d.notification_id = $1 AND ${ownPartition('d', '$1')}) u`;

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
  /** Its variants (docs/api.md#variants) and A/B test's phase and due decision, null without. */
  variants: StoredVariant[] | null;
  ab_phase: string | null;
  ab_due_at: Date | null;
}

/** Why start() did not start: the notification does not exist, or is held until its send_at. */
export type NotStarted = { missing: true } | { missing: false; dueAt: Date };

/** What a chunk needs besides the notification: who may be sent to, how rows are batched, when they are due. */
export interface ChunkParams {
  appId: string;
  /** List entries (user ids, installation ids), or installations for tags and all, per chunk. */
  chunkSize: number;
  batchSize: number;
  wanted: readonly Platform[];
  /** The push providers with credentials (docs/api.md#push-provider). */
  configured: readonly PushProviderName[];
  /** Platforms skipped as SilentNotSupported. */
  silentless: readonly Platform[];
  /** Due times for the chunk's zones (a local-time send, or quiet hours), computed from them; absent: `fixedDue` for all. */
  dueTimes?: (zones: string[]) => ChunkDueTimes;
  fixedDue: Date | null;
  cap: { max: number; hours: number } | null;
  paceMs: number | null;
  /** `options.channels` (docs/api.md#inbox); push only when absent. */
  channels?: { push: boolean; inbox: boolean };
  /** The send's topic (`options.topic`, implied by `recipients.topic`), null for none. */
  topic: string | null;
  /** A marketing send (docs/api.md#pacing). */
  marketing: boolean;
  /** Its variants and A/B sample (docs/api.md#variants); null without. */
  variants?: ChunkVariants | null;
  /** How long a filter's audience may take to find (AUDIENCE_STATEMENT_TIMEOUT_MS), else AudienceTimedOutError. */
  audienceTimeoutMs: number;
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
  /** A throttled send's audience, counted at its first chunk (countAudience); null before, and for other sends. */
  audience: number | null;
}

/** A send's whole audience, from its own row `n`, after `FROM installations i` (as CHUNK_TARGETS takes it a chunk at a time). */
const AUDIENCE_OF_ROW: Record<Exclude<RecipientKind, 'filter'>, string> = {
  user_ids: recipientsPredicate('user_ids', 'n.user_ids'),
  installation_ids: recipientsPredicate('installation_ids', 'n.installation_ids'),
  tags: recipientsPredicate('tags', 'n.tags'),
  all: 'true',
  topic: `i.user_id IS NOT NULL AND NOT ${topicSql('n.app_id', '$2::text').unsubscribed}`,
};

/** Every installation of a chunk due at `fixedDue`: a send without local times or quiet hours, or a cancelled one. */
const NO_ZONES = (params: ChunkParams): ChunkDueTimes => ({ zones: [], dues: [], quietSkips: [], fallback: params.fixedDue, fallbackQuietSkip: false });

/** The chunk's own values: its ids, a walk's position, or a filter's staged chunk; null when a list is used up. */
function chunkTargets(n: LockedNotification, chunkSize: number): ChunkTargetValues | null {
  switch (n.kind) {
    case 'user_ids':
    case 'installation_ids':
      return n.ids && n.ids.length > 0 ? { ids: n.ids } : null;
    case 'tags':
      return { tags: n.tags!, cursor: n.cursor ?? '', chunk_size: chunkSize };
    case 'filter':
      return n.position < n.audience_chunks! ? { audience_chunk: n.position } : null;
    case 'all':
      return { cursor: n.cursor ?? '', chunk_size: chunkSize };
    case 'topic':
      return { cursor: n.cursor ?? '', chunk_size: chunkSize, walk_topic: true };
  }
}

/** Kinds whose chunks walk a cursor (installation ids; a topic's user ids) rather than use up a list. */
const isWalk = (kind: RecipientKind) => kind === 'tags' || kind === 'all' || kind === 'topic';

const CHUNK: ChunkParams = {
  appId: OTHER_ID,
  chunkSize: 5000,
  batchSize: 500,
  wanted: ['ios', 'android', 'web'],
  configured: ['apns'],
  silentless: [],
  dueTimes: (zones) => ({ zones, dues: zones.map(() => AT), quietSkips: zones.map(() => false), fallback: AT, fallbackQuietSkip: false }),
  fixedDue: null,
  cap: { max: 3, hours: 24 },
  paceMs: 500,
  channels: { push: true, inbox: true },
  topic: 'promotions',
  marketing: true,
  audienceTimeoutMs: 10000,
};

/** The notification row nextChunk locks, for one recipients kind; `ids` empty: the list is used up; a filter's audience not staged yet unless its chunks are given; the audience not counted unless given. */
const locked = (kind: RecipientKind, ids: string[] = ['x'], audienceChunks: number | null = null, counted: number | null = null) => [
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
    audience: counted,
  },
];
const chunkDone = { found: 1, last_installation_id: 'x', users: 1, installations: 1, skipped: 0, skipped_by_reason: [], batches_used: 1, batches: [] };
/** A filter send's audience as its first chunk stages it (FanOutRepository.stageAudience), under its time limit: two chunks. */
const staged = (kind: RecipientKind) => (kind === 'filter' ? [[], [], [{ chunks: 2 }], []] : []);

/** nextChunk's cases, for each recipients kind: a chunk the fan-out goes on after, and the last one; `[]` answers the cap's lock. */
const NEXT_CHUNK_CASES: GenerateSqlCase[] = [
  ...RECIPIENT_KINDS.map((kind) => ({
    name: kind,
    params: [ID, CHUNK],
    answers: [locked(kind), ...staged(kind), [[], 1], [{ zone: 'Europe/Paris' }], [], [isWalk(kind) ? { ...chunkDone, found: CHUNK.chunkSize } : chunkDone]],
  })),
  ...RECIPIENT_KINDS.map((kind) => ({
    name: `the last, ${kind}`,
    params: [ID, { ...CHUNK, dueTimes: undefined }],
    answers: isWalk(kind)
      ? [locked(kind, ['x'], null, 9), [], [{ ...chunkDone, found: 0 }]]
      : kind === 'filter'
        ? [locked(kind, [], 1, 9), [], [chunkDone]]
        : [locked(kind, [])],
  })),
];

/** The fan-out's statements; progress moves in the transaction of its rows, so a resumed fan-out counts no one twice. */
@Injectable()
@SqlFile('fan-out.repository.sql')
export class FanOutRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /** Marks processing as started (once) when the notification is due (its send_at has come, or it was cancelled), and reads where the fan-out stands. */
  @GenerateSql({ params: [ID] })
  async start(notificationId: string): Promise<StartedRow | NotStarted> {
    // TypeORM answers an UPDATE ... RETURNING with [rows, affected].
    const [[started]]: [StartedRow[], number] = await this.db.query(
      `UPDATE notifications n SET processing_started_at = COALESCE(n.processing_started_at, now())
       FROM apps a
       WHERE n.id = $1 AND a.id = n.app_id
         AND (n.send_at IS NULL OR n.send_at <= now() OR n.canceled_at IS NOT NULL OR n.processing_started_at IS NOT NULL)
       RETURNING n.app_id, n.options, n.title IS NULL AS silent, n.fanout_position, n.fanned_out_at, n.send_at, n.processing_started_at, GREATEST(n.created_at, n.send_at) AS reference_at,
         n.variants, n.ab_phase, n.ab_due_at,
         a.frequency_cap_max, a.frequency_cap_hours, a.quiet_hours_start, a.quiet_hours_end`,
      [notificationId],
    );
    if (started) return started;
    const [held]: { send_at: Date }[] = await this.db.query(`SELECT send_at FROM notifications WHERE id = $1`, [notificationId]);
    return held ? { missing: false, dueAt: held.send_at } : { missing: true };
  }

  /** Fans out the next chunk in one transaction; null when nothing was left (then marked fanned out) or another fan-out finished it. */
  @cases(NEXT_CHUNK_CASES)
  async nextChunk(notificationId: string, params: ChunkParams): Promise<ChunkResult | null> {
    try {
      return await this.db.transaction((manager) => this.chunkIn(manager, notificationId, params, false));
    } catch (error) {
      // Only the staging of a filter's audience runs under a time limit.
      if (isQueryCanceled(error)) throw new AudienceTimedOutError(params.audienceTimeoutMs);
      // The chunk met a row an earlier chunk wrote (one of user ids may: `inserted`): rolled back, and once more skipping those.
      if (pgError(error).code !== UNIQUE_VIOLATION) throw error;
      return this.db.transaction((manager) => this.chunkIn(manager, notificationId, params, true));
    }
  }

  private async chunkIn(manager: EntityManager, notificationId: string, params: ChunkParams, relisted: boolean): Promise<ChunkResult | null> {
    // The row lock serialises fan-outs of one notification, should two ever run, and a cancel.
    const [n]: LockedNotification[] = await manager.query(
      `SELECT recipient_kind AS kind, fanout_position AS position, fanout_batches AS batches, fanned_out_at,
         fanout_cursor AS cursor, canceled_at IS NOT NULL AS canceled, tags, recipient_filter AS filter, processing_started_at AS started_at,
         fanout_audience_chunks AS audience_chunks, fanout_audience AS audience,
         CASE recipient_kind
           WHEN $3::text THEN user_ids[fanout_position + 1 : fanout_position + $2]
           WHEN $4::text THEN installation_ids[fanout_position + 1 : fanout_position + $2]
         END AS ids
       FROM notifications WHERE id = $1 FOR UPDATE`,
      [notificationId, params.chunkSize, 'user_ids' satisfies RecipientKind, 'installation_ids' satisfies RecipientKind],
    );
    if (n.fanned_out_at) return null;
    if (n.kind === 'filter' && n.audience_chunks === null) n.audience_chunks = await this.stageAudience(manager, notificationId, params, n);
    const target = chunkTargets(n, params.chunkSize);
    if (target === null) {
      await this.finish(manager, notificationId, n.kind);
      return null;
    }
    if (params.paceMs !== null && n.audience === null && !n.canceled) await this.countAudience(manager, notificationId, n.kind, params.topic);
    let due: ChunkDueTimes = NO_ZONES(params);
    if (params.dueTimes && !n.canceled) {
      const zones = chunkZonesStatement(n.kind);
      const found = await manager.query<{ zone: string }[]>(zones.text, chunkZonesValues(zones, params.appId, notificationId, target, params.topic));
      due = params.dueTimes(found.map((z) => z.zone));
    }
    const walked = isWalk(n.kind);
    // One app's capped chunks are written one at a time, each counting the receipts the last one wrote.
    if (params.cap) await manager.query(`SELECT pg_advisory_xact_lock(hashtext('frequency-cap:' || $1::text))`, [params.appId]);
    const statement = chunkStatement({ kind: n.kind, relisted, stores: null });
    const values = chunkStatementValues(
      statement,
      {
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
        channels: params.channels ?? { push: true, inbox: false },
        topic: params.topic,
        marketing: params.marketing,
        variants: params.variants ?? null,
      },
      target,
    );
    const [r] = await manager.query<[ChunkRow]>(statement.text, values);
    if (n.kind === 'filter') await this.unstage(manager, notificationId, n.position);
    const finished = walked ? r.found < params.chunkSize : n.kind === 'filter' && n.position + 1 >= n.audience_chunks!;
    if (finished) await this.finish(manager, notificationId, n.kind);
    return chunkResult(n.kind, n.batches, n.canceled, r, finished);
  }

  /** Stages a filter's audience as chunks from 0 and answers their count (docs/decisions/0011-filter-audience-staged-once.md). */
  private async stageAudience(manager: EntityManager, notificationId: string, params: ChunkParams, n: LockedNotification): Promise<number> {
    const filter = compileFilter(n.filter!, 3, n.started_at!);
    await manager.query(statementTimeout(params.audienceTimeoutMs));
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
    await manager.query(`SET LOCAL statement_timeout TO DEFAULT`);
    return chunks;
  }

  /** A throttled send's whole audience as its first chunk finds it, so its statistics show what still waits (docs/api.md#pacing). */
  private async countAudience(manager: EntityManager, notificationId: string, kind: RecipientKind, topic: string | null): Promise<void> {
    const counted =
      kind === 'filter'
        ? `SELECT COALESCE(sum(cardinality(a.installation_ids)), 0) FROM fanout_audiences a WHERE a.notification_id = n.id`
        : `SELECT count(*) FROM installations i WHERE i.app_id = n.app_id AND i.deleted_at IS NULL AND ${AUDIENCE_OF_ROW[kind]}`;
    await manager.query(
      `UPDATE notifications n SET fanout_audience = (${counted})::int WHERE n.id = $1`,
      kind === 'topic' ? [notificationId, topic] : [notificationId],
    );
  }

  /** Marks a small send's fan-out done once its batch was delivered (docs/api.md#small-sends); false when already done. */
  @GenerateSql({ params: [ID], answers: [[[{ id: ID }], 1]] })
  async finishSmallSend(notificationId: string): Promise<boolean> {
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

  /** Ends a send that failed before any delivery (docs/api.md#notification-resource): fanned out to no one, for `reason`; false when already fanned out. */
  @GenerateSql({ params: [ID, 'AudienceTimedOut'], answers: [[[{ id: ID }], 1]] })
  async fail(notificationId: string, reason: NotificationFailureReason): Promise<boolean> {
    const [failed]: [unknown[], number] = await this.db.query(FAIL.text, valuesOf(FAIL, { notification_id: notificationId, reason }));
    return failed.length > 0;
  }

  private async unstage(manager: EntityManager, notificationId: string, chunk: number): Promise<void> {
    await manager.query(`DELETE FROM fanout_audiences WHERE notification_id = $1 AND chunk = $2`, [notificationId, chunk]);
  }

  /** Marks the fan-out done; except for user ids, counts its distinct users (docs/api.md#recipients). */
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
