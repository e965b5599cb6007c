import { inboxDisabled, notSendable, pushDisabled, recipientsPredicate, topicSql } from '../../common/audience-sql';
import { minuteCountsInsert } from '../../common/minute-counts';
import { NewNotification, NOTIFICATION_ROW_COLUMNS } from '../../common/notification';
import { NotificationOptions } from '../../common/notification-options';
import { Platform, PLATFORMS, PushProviderName, pushProviderSql } from '../../common/platform';
import { compile, NamedSql, valuesOf } from '../../common/sql/named';
import { DeliveryStatus, Permission, RecipientKind, SkipReason } from '../../common/vocabulary';
import { INBOX_NOTIFY_CHANNEL } from '../../common/inbox-notify';
import { ChunkDueTimes } from './pacing';
import { HELD_SQL, inSampleSql, variantSql } from '../../common/variants';

/** The chunk statement's one builder, for the fan-out job and small sends (docs/decisions/0015-one-chunk-statement-two-callers.md). */

const LIVE = `WHERE i.app_id = :app_id AND i.deleted_at IS NULL`;
/** A walk's next chunk: after the cursor, in installation_id order (the unique (app_id, installation_id) index). */
const WALK = `i.installation_id > :cursor::text ORDER BY i.installation_id LIMIT :chunk_size`;

const topic = topicSql(':app_id::uuid', ':topic::text');

/** A topic send's next users (docs/api.md#topics-and-preferences), walked by user id: a CTE of the statement. */
const WALK_SUBSCRIBERS = `walk AS (SELECT w.user_id FROM ${topic.subscribersAfter(':cursor::text', ':chunk_size::int')} w)`;

/** The installations one chunk covers, after `FROM installations i`, by recipients kind. */
const CHUNK_TARGETS: Record<RecipientKind, string> = {
  user_ids: `${LIVE} AND ${recipientsPredicate('user_ids', ':ids')}`,
  installation_ids: `${LIVE} AND ${recipientsPredicate('installation_ids', ':ids')}`,
  tags: `${LIVE} AND ${recipientsPredicate('tags', ':tags')} AND ${WALK}`,
  filter: `${LIVE} AND i.id = ANY((SELECT a.installation_ids FROM fanout_audiences a WHERE a.notification_id = :notification_id::uuid AND a.chunk = :audience_chunk::int)::uuid[])`,
  all: `${LIVE} AND ${WALK}`,
  topic: `${LIVE} AND i.user_id = ANY(ARRAY(SELECT user_id FROM walk)) AND NOT ${topic.unsubscribed}`,
};

/** The CTE a kind's targets read, before the others. */
const TARGET_CTE: Partial<Record<RecipientKind, string>> = { topic: WALK_SUBSCRIBERS };

/** The chunk's own parameters, by kind: its ids, or a walk's position, or a filter's staged chunk. */
export type ChunkTargetValues =
  | { ids: string[] }
  | { tags: string[]; cursor: string; chunk_size: number }
  | { audience_chunk: number }
  | { cursor: string; chunk_size: number }
  | { cursor: string; chunk_size: number; walk_topic: true };

const WORDS = {
  reason_canceled: SkipReason.Canceled,
  reason_unsubscribed: SkipReason.Unsubscribed,
  reason_push_disabled: SkipReason.PushDisabled,
  reason_platform_excluded: SkipReason.PlatformExcluded,
  reason_silent_not_supported: SkipReason.SilentNotSupported,
  reason_no_credentials: SkipReason.NoCredentials,
  reason_permission_denied: SkipReason.PermissionDenied,
  reason_invalidated: SkipReason.Invalidated,
  reason_no_token: SkipReason.NoToken,
  reason_frequency_capped: SkipReason.FrequencyCapped,
  reason_quiet_hours: SkipReason.QuietHours,
  status_skipped: 'skipped',
  status_scheduled: 'scheduled',
  status_pending: 'pending',
  permission_denied: 'denied',
} as const satisfies Record<string, SkipReason | DeliveryStatus | Permission>;

const skip = notSendable(':permission_denied::text');

/** A marketing send's frequency cap (docs/api.md#pacing), counted on the marketing_receipts key, stopped at the cap. */
const capped = `:cap_max::int IS NOT NULL AND (SELECT count(*) FROM (
          SELECT 1 FROM marketing_receipts r
          WHERE r.installation_id = i.id AND r.accepted_at > now() - make_interval(hours => :cap_hours::int) LIMIT :cap_max::int) r) >= :cap_max::int`;

/** The chunk's installations, each with its skip reason (docs/api.md#delivery: the first that applies) or null. */
const chosen = (where: string) => `chosen AS (
    SELECT i.id, i.user_id, i.platform, i.installation_id, i.device ->> 'timezone' AS zone,
      CASE
        WHEN :is_canceled::boolean THEN :reason_canceled::text
        WHEN :topic::text IS NOT NULL AND ${topic.unsubscribed} THEN :reason_unsubscribed::text
        WHEN :is_marketing::boolean AND ${pushDisabled(':app_id::uuid')} THEN :reason_push_disabled::text
        WHEN NOT (i.platform = ANY(:wanted::text[])) THEN :reason_platform_excluded::text
        WHEN i.platform = ANY(:silentless::text[]) THEN :reason_silent_not_supported::text
        WHEN NOT (${pushProviderSql('i')} = ANY(:configured::text[])) THEN :reason_no_credentials::text
        WHEN ${skip.denied} THEN :reason_permission_denied::text
        WHEN ${skip.invalidated} THEN :reason_invalidated::text
        WHEN ${skip.noToken} THEN :reason_no_token::text
        WHEN ${capped} THEN :reason_frequency_capped::text
      END AS skip_reason
    FROM installations i
    ${where}
  )`;

/** Not in an A/B test's sample (docs/api.md#a-b-test-with-a-winner): held for the winner; always false for other sends. */
const HELD = `CASE WHEN :sample_percent::int IS NULL THEN false
        ELSE NOT (${inSampleSql(':notification_id::uuid::text', 'c.user_id', 'c.installation_id', ':sample_percent::int')}) END`;

/** Its variant's index (docs/api.md#variants): null for a send without variants (a held row's is not stored: `inserted`). */
const VARIANT = `CASE WHEN :variant_total::int IS NULL THEN NULL
        ELSE ${variantSql(':notification_id::uuid::text', 'c.user_id', 'c.installation_id', ':variant_total::int', ':variant_thresholds::int[]')} END`;

/** Each one's due time: its zone's, else the fallback; skipped as QuietHours when quiet hours outlast its ttl; its variant, or held. */
const targets = `targets AS (
    SELECT c.id, c.user_id, c.platform, c.installation_id, CASE WHEN z.zone IS NULL THEN :fallback_due::timestamptz ELSE z.due END AS due,
      COALESCE(c.skip_reason, CASE WHEN COALESCE(z.quiet_skip, :fallback_quiet_skip::boolean) THEN :reason_quiet_hours::text END) AS skip_reason,
      ${VARIANT} AS variant, ${HELD} AS held
    FROM chosen c LEFT JOIN unnest(:zones::text[], :zone_dues::timestamptz[], :zone_quiet_skips::boolean[]) AS z(zone, due, quiet_skip) ON z.zone = c.zone
  )`;

const numbered = `numbered AS (
    SELECT t.*, CASE WHEN t.skip_reason IS NULL
      THEN (row_number() OVER (PARTITION BY t.skip_reason IS NULL, t.due, t.held ORDER BY t.platform, t.id) - 1) / :batch_size END AS local_batch
    FROM targets t
  )`;

const dueGroups = `due_groups AS (
    SELECT due, held, max(local_batch) + 1 AS batches FROM numbered WHERE skip_reason IS NULL GROUP BY due, held
  )`;

/** Batch numbers continue from the notification's batches so far, one due time after the other; rows held for a winner in batches of their own. */
const groupOffsets = `group_offsets AS (
    SELECT due, held, batches, (sum(batches) OVER (ORDER BY due NULLS FIRST, held) - batches)::int AS first_batch FROM due_groups
  )`;

/** Each one's batch; a throttled send's batch k is due no earlier than k turns of :pace_ms after the start (docs/api.md#pacing). */
const placed = (startedAt: string) => `placed AS (
    SELECT n.id, n.platform, n.user_id, n.skip_reason, b.batch, n.variant, n.held,
      CASE WHEN :pace_ms::float8 IS NULL OR n.skip_reason IS NOT NULL THEN n.due
        ELSE GREATEST(n.due, ${startedAt} + make_interval(secs => b.batch * :pace_ms::float8 / 1000)) END AS due
    FROM numbered n LEFT JOIN group_offsets g ON n.skip_reason IS NULL AND g.due IS NOT DISTINCT FROM n.due AND g.held = n.held,
      LATERAL (SELECT COALESCE(:batches_so_far + g.first_batch + n.local_batch, -1) AS batch) b
  )`;

/**
 * Each installation once per notification: `ON CONFLICT` only when `relisted` (docs/decisions/0013-fan-out-chunks-insert-without-on-conflict.md).
 * A row held for an A/B test's winner waits "scheduled" with no due time of its own (HELD_SQL) until the decision releases it.
 */
const inserted = (relisted: boolean, startedAt: string) => `inserted AS (
    INSERT INTO deliveries (notification_id, installation_id, notification_started_at, platform, user_id, batch, status, reason, scheduled_for, next_attempt_at, variant)
    SELECT :notification_id, n.id, ${startedAt}, n.platform, n.user_id, n.batch,
      CASE WHEN n.skip_reason IS NOT NULL THEN :status_skipped::text WHEN n.held OR n.due > now() THEN :status_scheduled::text ELSE :status_pending::text END,
      n.skip_reason, CASE WHEN n.held AND n.skip_reason IS NULL THEN NULL ELSE n.due END,
      CASE WHEN n.skip_reason IS NOT NULL THEN NULL WHEN n.held THEN ${HELD_SQL} WHEN n.due > now() THEN n.due END,
      CASE WHEN n.held THEN NULL ELSE n.variant END
    FROM placed n WHERE :push::boolean${relisted ? '\n    ON CONFLICT (notification_id, installation_id, notification_started_at) DO NOTHING' : ''}
    RETURNING installation_id, status, batch, next_attempt_at, platform, reason
  )`;

/**
 * The users a chunk stores inbox messages for (docs/api.md#inbox): a list's every user, else the
 * chunk's users; less those not subscribed to the send's topic and, on a marketing send, those who
 * turned the inbox off (docs/api.md#preferences). Each is `i.user_id`, as the predicates name it.
 */
const inboxUsers = (kind: RecipientKind) => `inbox_users AS (
    SELECT DISTINCT i.user_id FROM ${kind === 'user_ids' ? 'unnest(:ids::text[]) AS i(user_id)' : 'chosen i'}
    WHERE i.user_id IS NOT NULL AND (:topic::text IS NULL OR NOT ${topic.unsubscribed})
      AND NOT (:is_marketing::boolean AND ${inboxDisabled(':app_id::uuid')})
  )`;

/** What an inbox message copies: the send's content, read from its row or, when the statement stores it, from its values. */
const inboxContent = (stores: boolean) => `inbox_content AS (
    SELECT ${
      stores
        ? `:title::text AS title, :body::text AS body, :image_url::text AS image_url, :action_url::text AS action_url, :data::jsonb AS data,
      :localizations::json AS localizations, :options::jsonb ->> 'topic' AS topic, a.inbox_days
    FROM apps a WHERE a.id = :app_id::uuid`
        : `n.title, n.body, n.image_url, n.action_url, n.data, n.localizations, n.options ->> 'topic' AS topic, a.inbox_days
    FROM notifications n JOIN apps a ON a.id = n.app_id WHERE n.id = :notification_id`
    } AND :inbox::boolean AND NOT :is_canceled::boolean
  )`;

const LOCALE_TAG = `lower(replace(l.key, '_', '-'))`;

/**
 * One message per user, once per send whatever the retries; localized as a device of the user's most
 * recently seen installation would be (docs/api.md#localization: tag, language, same language, default).
 */
const inboxStored = `inbox_stored AS (
    INSERT INTO inbox_messages (app_id, user_id, notification_id, title, body, image_url, action_url, data, topic, expires_at)
    SELECT :app_id, u.user_id, :notification_id, COALESCE(v.fields ->> 'title', c.title), COALESCE(v.fields ->> 'body', c.body),
      COALESCE(v.fields ->> 'image_url', c.image_url), COALESCE(v.fields ->> 'action_url', c.action_url), c.data, c.topic,
      now() + make_interval(days => c.inbox_days)
    FROM inbox_content c CROSS JOIN inbox_users u
    LEFT JOIN LATERAL (
      SELECT l.value AS fields
      FROM (SELECT lower(replace(btrim(i.device ->> 'locale'), '_', '-')) AS tag FROM installations i
            WHERE i.app_id = :app_id AND i.user_id = u.user_id AND i.deleted_at IS NULL AND c.localizations IS NOT NULL
            ORDER BY i.last_seen_at DESC LIMIT 1) loc,
        json_each(c.localizations) WITH ORDINALITY AS l(key, value, ord)
      WHERE ${LOCALE_TAG} = loc.tag OR split_part(${LOCALE_TAG}, '-', 1) = split_part(loc.tag, '-', 1)
      ORDER BY ${LOCALE_TAG} = loc.tag DESC, ${LOCALE_TAG} = split_part(loc.tag, '-', 1) DESC, l.ord
      LIMIT 1) v ON true
    ON CONFLICT (notification_id, user_id) DO NOTHING
    RETURNING 1
  )`;

/** A capped send's rows to send count under the cap from now, in flight (docs/api.md#pacing); an outcome or cancel gives a place back. */
const claimedReceipts = `claimed_receipts AS (
    INSERT INTO marketing_receipts (installation_id, accepted_at, notification_id)
    SELECT installation_id, now(), :notification_id FROM inserted WHERE :cap_max::int IS NOT NULL AND status <> :status_skipped::text
  )`;

const perMinute = `per_minute AS (
    ${minuteCountsInsert(`SELECT :notification_id::uuid, status FROM inserted WHERE status = :status_skipped::text`)}
  )`;

/** A walk's progress: installations found and the last one, or for a topic its users. */
const counts = (kind: RecipientKind) => `counts AS (
    SELECT
      ${kind === 'topic' ? '(SELECT count(*) FROM walk)::int AS found' : '(SELECT count(*) FROM chosen)::int AS found'},
      ${kind === 'topic' ? '(SELECT max(user_id) FROM walk)' : '(SELECT max(installation_id) FROM chosen)'} AS last_installation_id,
      (SELECT count(DISTINCT user_id) FROM chosen)::int AS users,
      (SELECT count(*) FROM inserted)::int AS installations,
      (SELECT count(*) FROM inserted WHERE status = :status_skipped::text)::int AS skipped,
      (SELECT COALESCE(sum(batches), 0) FROM due_groups)::int AS batches_used,
      (SELECT count(*) FROM inbox_stored)::int AS inbox_stored
  )`;

const progress = `progress AS (
    UPDATE notifications n SET fanout_position = n.fanout_position + :advanced::int, fanout_batches = n.fanout_batches + c.batches_used,
      stat_users = n.stat_users + CASE WHEN :count_users::boolean THEN c.users ELSE 0 END,
      stat_installations = n.stat_installations + c.installations, stat_skipped = n.stat_skipped + c.skipped,
      stat_inbox_stored = n.stat_inbox_stored + c.inbox_stored,
      fanout_cursor = CASE WHEN :walked::boolean THEN COALESCE(c.last_installation_id, n.fanout_cursor) ELSE n.fanout_cursor END
    FROM counts c
    WHERE n.id = :notification_id
  )`;

/** A small send's notification (docs/api.md#small-sends), started now, with what `progress` would move. */
const stored = `stored AS (
    INSERT INTO notifications (id, app_id, title, body, image_url, action_url, data, options, user_ids, target_users,
      recipient_kind, installation_ids, tags, send_at, localizations, recipient_filter, template, variables,
      processing_started_at, fanout_position, fanout_batches, fanout_cursor, stat_users, stat_installations, stat_skipped, stat_inbox_stored)
    SELECT :notification_id::uuid, :app_id::uuid, :title::text, :body::text, :image_url::text, :action_url::text, :data::jsonb, :options::jsonb,
      :user_ids::text[], :target_users::int, :recipient_kind::text, :installation_ids::text[], :tags::text[], :send_at::timestamptz,
      :localizations::json, :recipient_filter::jsonb, :template::jsonb, :variables::jsonb,
      now(), :advanced::int, c.batches_used, CASE WHEN :walked::boolean THEN c.last_installation_id END,
      CASE WHEN :count_users::boolean THEN c.users ELSE 0 END, c.installations, c.skipped, c.inbox_stored
    FROM counts c
    RETURNING ${NOTIFICATION_ROW_COLUMNS}
  )`;

const linked = `linked AS (
    UPDATE idempotency_keys SET notification_id = :notification_id::uuid WHERE app_id = :app_id::uuid AND key = :idempotency_key::text
  )`;

/** Api processes listening for inbox messages read this chunk's (docs/api.md#inbox-stream), once it commits. */
const report = (stores: boolean) => `SELECT c.*,${stores ? ' stored.*,' : ''}
    CASE WHEN c.inbox_stored > 0 THEN (SELECT 1 FROM pg_notify(:inbox_channel::text,
      json_build_object('app_id', :app_id::text, 'notification_id', :notification_id::text)::text)) END AS inbox_notified,
    (SELECT COALESCE(jsonb_agg(s), '[]'::jsonb) FROM (
       SELECT platform, reason, count(*)::int AS count FROM inserted WHERE status = :status_skipped::text GROUP BY platform, reason) s) AS skipped_by_reason,
    (SELECT COALESCE(json_agg(json_build_object('batch', batch, 'due', due)), '[]')
       FROM (SELECT batch, max(next_attempt_at) AS due FROM inserted
             WHERE status <> :status_skipped::text AND next_attempt_at IS DISTINCT FROM ${HELD_SQL} GROUP BY batch) b) AS batches
  FROM counts c${stores ? ', stored' : ''}`;

/** The notification's processing start, its rows' partition key: read from its row, or now() when the statement stores it. */
const STARTED_AT = '(SELECT processing_started_at FROM notifications WHERE id = :notification_id)';

const SHAPES = new Map<string, NamedSql>();

export interface ChunkShape {
  kind: RecipientKind;
  /** The chunk's installations may have rows already, which it skips (FanOutRepository.nextChunk). */
  relisted: boolean;
  /** The statement inserts the notification too (a small send), and links its Idempotency-Key when `keyed`. */
  stores: null | { keyed: boolean };
}

/** One chunk's delivery rows in one statement: skipped with a reason, or batched by due time. Built once per shape. */
export function chunkStatement(shape: ChunkShape): NamedSql {
  const key = `${shape.kind}:${shape.relisted}:${shape.stores === null ? '-' : shape.stores.keyed}`;
  let statement = SHAPES.get(key);
  if (!statement) SHAPES.set(key, (statement = buildChunkStatement(shape)));
  return statement;
}

function buildChunkStatement(shape: ChunkShape): NamedSql {
  const startedAt = shape.stores ? 'now()' : STARTED_AT;
  return compile(`
  WITH ${[TARGET_CTE[shape.kind], chosen(CHUNK_TARGETS[shape.kind])].filter(Boolean).join(',\n  ')},
  ${targets},
  ${numbered},
  ${dueGroups},
  ${groupOffsets},
  ${placed(startedAt)},
  ${inserted(shape.relisted, startedAt)},${shape.stores ? '' : `\n  ${claimedReceipts},`}
  ${inboxUsers(shape.kind)},
  ${inboxContent(shape.stores !== null)},
  ${inboxStored},
  ${perMinute},
  ${counts(shape.kind)},
  ${shape.stores ? stored : progress}${shape.stores?.keyed ? `,\n  ${linked}` : ''}
  ${report(shape.stores !== null)}`);
}

/** The time zones (device.timezone) of a chunk's installations. */
export function chunkZonesStatement(kind: RecipientKind): NamedSql {
  const cte = TARGET_CTE[kind];
  return compile(`
  ${cte ? `WITH ${cte}\n  ` : ''}SELECT DISTINCT zone FROM (SELECT i.device ->> 'timezone' AS zone FROM installations i ${CHUNK_TARGETS[kind]}) z
  WHERE zone IS NOT NULL`);
}

/** The parameters of a chunkZonesStatement, by name (a filter's staged chunk is the notification's; a topic walk's topic, the send's). */
export const chunkZonesValues = (statement: NamedSql, appId: string, notificationId: string, target: ChunkTargetValues, topic: string | null): unknown[] =>
  valuesOf(statement, {
    app_id: appId,
    ...targetValues(target),
    ...('audience_chunk' in target ? { notification_id: notificationId } : {}),
    ...('walk_topic' in target ? { topic } : {}),
  });

/** A target's SQL values: the walk_topic marker is no parameter. */
const targetValues = (target: ChunkTargetValues) => {
  if (!('walk_topic' in target)) return target;
  const { walk_topic: _walk, ...rest } = target;
  return rest;
};

export interface ChunkValues {
  appId: string;
  notificationId: string;
  batchSize: number;
  wanted: readonly Platform[];
  /** The push providers the app has credentials for (docs/api.md#push-provider): an installation of another is skipped as NoCredentials. */
  configured: readonly PushProviderName[];
  /** Platforms that cannot take this send silently (docs/api.md#silent-sends): skipped. */
  silentless: readonly Platform[];
  batches: number;
  canceled: boolean;
  due: ChunkDueTimes;
  cap: { max: number; hours: number } | null;
  paceMs: number | null;
  /** Positions the chunk completes (`fanout_position`): a list chunk's ids, a filter's staged chunk, 0 for a walk. */
  advanced: number;
  /** A walk (tags, the whole app): its cursor moves to the chunk's last installation. */
  walked: boolean;
  /** The chunk's users are added to the notification's (a chunk of user ids). */
  countUsers: boolean;
  /** `options.channels` (docs/api.md#inbox): delivery rows, inbox messages. */
  channels: { push: boolean; inbox: boolean };
  /** `options.topic` (docs/api.md#topics-and-preferences): its unsubscribed users are skipped. */
  topic: string | null;
  /** A marketing send (docs/api.md#pacing): users who turned push off are skipped. */
  marketing: boolean;
  /** A send with variants (docs/api.md#variants): the weights' sum and running totals, and an A/B test's sample share; null without. */
  variants: ChunkVariants | null;
}

export interface ChunkVariants {
  total: number;
  /** variantThresholds(weights). */
  thresholds: number[];
  /** An A/B test's `sample_percent` while its sample is fanned out; null without a test. */
  samplePercent: number | null;
}

/** A stored notification's values but its id and app, which the chunk's own name (notification_id, app_id), and its variants, which a small send never has. */
const withoutKeys = ({ id: _id, app_id: _appId, variants: _variants, ab_phase: _ab, ...rest }: NewNotification & { target_users: number }) => rest;

export function chunkStatementValues(
  statement: NamedSql,
  v: ChunkValues,
  target: ChunkTargetValues,
  store?: { notification: NewNotification & { target_users: number }; key: string | null },
): unknown[] {
  return valuesOf(statement, {
    app_id: v.appId,
    notification_id: v.notificationId,
    batch_size: v.batchSize,
    wanted: v.wanted,
    configured: v.configured,
    silentless: v.silentless,
    batches_so_far: v.batches,
    is_canceled: v.canceled,
    zones: v.due.zones,
    zone_dues: v.due.dues,
    zone_quiet_skips: v.due.quietSkips,
    fallback_due: v.due.fallback,
    fallback_quiet_skip: v.due.fallbackQuietSkip,
    cap_max: v.cap?.max ?? null,
    cap_hours: v.cap?.hours ?? null,
    pace_ms: v.paceMs,
    advanced: v.advanced,
    walked: v.walked,
    count_users: v.countUsers,
    push: v.channels.push,
    inbox: v.channels.inbox,
    inbox_channel: INBOX_NOTIFY_CHANNEL,
    topic: v.topic,
    is_marketing: v.marketing,
    variant_total: v.variants?.total ?? null,
    variant_thresholds: v.variants?.thresholds ?? null,
    sample_percent: v.variants?.samplePercent ?? null,
    ...WORDS,
    ...targetValues(target),
    ...(store && withoutKeys(store.notification)),
    ...(store?.key != null ? { idempotency_key: store.key } : {}),
  });
}

export interface ChunkRow {
  found: number;
  last_installation_id: string | null;
  users: number;
  installations: number;
  skipped: number;
  skipped_by_reason: ChunkResult['skipped'];
  batches_used: number;
  batches: { batch: number; due: string | null }[];
  inbox_stored: number;
}

export interface FilledBatch {
  batch: number;
  due: Date | null;
}

export interface ChunkResult {
  /** Users counted by this chunk: its users for a list of user ids, else 0 (a walk counts them when it finishes). */
  users: number;
  installations: number;
  batches: FilledBatch[];
  skipped: { platform: Platform; reason: SkipReason; count: number }[];
  /** The notification's batches so far, this chunk's included: the number of its next batch. */
  batchesSoFar: number;
  /** The notification was cancelled: every row of the chunk was skipped as Canceled. */
  canceled: boolean;
  finished: boolean;
}

export const chunkResult = (kind: RecipientKind, batchesBefore: number, canceled: boolean, r: ChunkRow, finished: boolean): ChunkResult => ({
  finished,
  users: kind === 'user_ids' ? r.users : 0,
  installations: r.installations,
  batches: r.batches.map((b) => ({ batch: b.batch, due: b.due === null ? null : new Date(b.due) })),
  skipped: r.skipped_by_reason,
  batchesSoFar: batchesBefore + r.batches_used,
  canceled,
});

/** `options.platforms`, else every one; a Live Activity start (docs/api.md#live-activity-starts) or a widget push (docs/api.md#widgets) only iOS. */
export const wantedPlatforms = (options: NotificationOptions | null): Platform[] =>
  (options?.platforms ?? PLATFORMS).filter((platform) => !(options?.live_activity || options?.widgets) || platform === 'ios');
