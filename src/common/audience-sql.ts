import { durationMs, FieldType, fieldType, FilterCondition, FilterNode, VERSION } from './audience-filter';
import type { RecipientKind } from './vocabulary';

/** A valid filter (docs/api.md#audience-filters) as one predicate on `installations i`, values as parameters from the first free one. */

/** The language of an installation: the primary subtag of device.locale, lower case. */
export const LANGUAGE_SQL = `lower(substring(i.device ->> 'locale' FROM '^[A-Za-z]+'))`;
/** app_version as the sort key the filters compare (app_version_key(), migration Audiences). */
export const APP_VERSION_SQL = `app_version_key(i.device ->> 'app_version')`;

const COLUMNS = { platform: 'i.platform', permission: 'i.permission', user_id: 'i.user_id', last_seen_at: 'i.last_seen_at', registered_at: 'i.registered_at' };

const COMPARE = { eq: '=', ne: '<>', lt: '<', lte: '<=', gt: '>', gte: '>=' } as const;

/** The int[] app_version_key() gives for a version: trailing zero parts dropped (4.2.0 = 4.2). */
export function versionKey(version: string): number[] {
  if (!VERSION.test(version)) throw new Error(`Not a version: ${version}`);
  const parts = version.split('.').map(Number);
  while (parts.length > 1 && parts[parts.length - 1] === 0) parts.pop();
  return parts;
}

export interface CompiledFilter {
  sql: string;
  params: unknown[];
}

/** One predicate for `filter`; `now` is the instant `within_last` counts back from (a send's processing start, so every chunk of its fan-out agrees). */
export function compileFilter(filter: FilterNode, firstParam: number, now: Date): CompiledFilter {
  const params: unknown[] = [];
  const param = (value: unknown, cast: string) => {
    params.push(value);
    return `$${firstParam + params.length - 1}::${cast}`;
  };
  // `conjunct`: ANDed up to the root, where an index can serve it; elsewhere each key is computed once.
  const node = (n: FilterNode, negated: boolean, conjunct: boolean): string => {
    if ('not' in n) return node(n.not, !negated, conjunct);
    if ('and' in n || 'or' in n) {
      const [children, and] = 'and' in n ? [n.and, true] : [n.or, false];
      return `(${children.map((child) => node(child, negated, conjunct && and !== negated)).join(and !== negated ? ' AND ' : ' OR ')})`;
    }
    return `(${condition(n, param, now, negated, conjunct)})`;
  };
  return { sql: node(filter, false, true), params };
}

type Param = (value: unknown, cast: string) => string;

/** A condition, or (`negated`) where it is not true: NULL included, as `NOT` would not. */
function condition(c: FilterCondition, param: Param, now: Date, negated: boolean, conjunct: boolean): string {
  const type = fieldType(c.field)!;
  if (type === 'property' || type === 'tags') return negated ? `(${opaque(c, type, param)}) IS NOT TRUE` : opaque(c, type, param);
  if (!negated) return comparable(c, param, now, conjunct);
  if (!conjunct) return `(${comparable(c, param, now, false)}) IS NOT TRUE`;
  // Its complement as a comparison too (`a <= x OR a IS NULL` for `a > x`), so an index on `a` still applies.
  const op = NEGATED[c.op];
  if (op === 'exists' || op === 'not_exists') return comparable({ field: c.field, op }, param, now, true);
  return `${comparable({ ...c, op }, param, now, true)} OR ${comparable({ field: c.field, op: 'not_exists' }, param, now, true)}`;
}

const NEGATED = {
  eq: 'ne',
  ne: 'eq',
  lt: 'gte',
  lte: 'gt',
  gt: 'lte',
  gte: 'lt',
  in: 'not_in',
  not_in: 'in',
  exists: 'not_exists',
  not_exists: 'exists',
  within_last: 'not_within_last',
  not_within_last: 'within_last',
  contains: 'contains',
} as const satisfies Record<FilterCondition['op'], FilterCondition['op']>;

/** Conditions no index serves negated (GIN: containment only). */
function opaque({ field, op, value }: FilterCondition, type: 'property' | 'tags', param: Param): string {
  if (type === 'property') return propertyCondition(field.slice('properties.'.length), op, value, param);
  if (op === 'contains') return `i.tags @> ARRAY[${param(value, 'text')}]`;
  return op === 'exists' ? `cardinality(i.tags) > 0` : `cardinality(i.tags) = 0`;
}

/** A comparison on a column or expression, null (not set) matching only `not_exists`. */
function comparable({ field, op, value }: FilterCondition, param: Param, now: Date, ranges: boolean): string {
  switch (fieldType(field) as Exclude<FieldType, 'property' | 'tags'>) {
    case 'instant': {
      const column = COLUMNS[field as 'last_seen_at' | 'registered_at'];
      if (op === 'not_exists') return `${column} IS NULL`;
      if (op === 'within_last' || op === 'not_within_last') {
        const since = param(new Date(now.getTime() - durationMs(value as string)), 'timestamptz');
        return op === 'within_last' ? `${column} >= ${since}` : `${column} < ${since}`;
      }
      return `${column} ${COMPARE[op as keyof typeof COMPARE]} ${param(value, 'timestamptz')}`;
    }
    case 'version':
      return nullable(APP_VERSION_SQL, op, value, (v) => param(versionKey(v as string), 'integer[]'), 'integer[]', param, ranges);
    case 'language':
      return nullable(
        LANGUAGE_SQL,
        op,
        value,
        (v) => param((v as string).toLowerCase(), 'text'),
        'text[]',
        param,
        ranges,
        (v) => (v as string).toLowerCase(),
      );
    case 'platform':
    case 'permission':
    case 'text':
      return nullable(COLUMNS[field as 'platform' | 'permission' | 'user_id'], op, value, (v) => param(v, 'text'), 'text[]', param, ranges);
  }
}

/** A condition on a column or expression; null (not set) matches no op but `not_exists`. */
function nullable(
  expr: string,
  op: FilterCondition['op'],
  value: FilterCondition['value'],
  one: (v: unknown) => string,
  listCast: string,
  param: Param,
  ranges: boolean,
  normalize: (v: unknown) => unknown = (v) => v,
): string {
  if (op === 'exists') return `${expr} IS NOT NULL`;
  if (op === 'not_exists') return `${expr} IS NULL`;
  if (op === 'in') return `${expr} = ANY(${param((value as unknown[]).map(normalize), listCast)})`;
  if (op === 'not_in') return `${expr} <> ALL(${param((value as unknown[]).map(normalize), listCast)})`;
  // Two ranges, which an index on `expr` serves; `<>` reads every row.
  if (op === 'ne' && ranges) {
    const v = one(value);
    return `(${expr} < ${v} OR ${expr} > ${v})`;
  }
  return `${expr} ${COMPARE[op as keyof typeof COMPARE]} ${one(value)}`;
}

/** A property matches only a value of its own type; `eq` is containment, which the GIN index (jsonb_path_ops) serves. */
function propertyCondition(key: string, op: FilterCondition['op'], value: FilterCondition['value'], param: Param): string {
  if (op === 'exists') return `i.properties ? ${param(key, 'text')}`;
  if (op === 'not_exists') return `NOT i.properties ? ${param(key, 'text')}`;
  if (op === 'eq') return `i.properties @> ${param(JSON.stringify({ [key]: value }), 'jsonb')}`;
  const list = op === 'in' || op === 'not_in' ? (value as unknown[]) : [value];
  const stored = `i.properties -> ${param(key, 'text')}`;
  const typed = `jsonb_typeof(${stored}) = ${param(typeof list[0], 'text')}`;
  if (op === 'in' || op === 'not_in') {
    const values = param(
      list.map((v) => JSON.stringify(v)),
      'jsonb[]',
    );
    return `${typed} AND ${stored} ${op === 'in' ? '=' : '<>'} ${op === 'in' ? 'ANY' : 'ALL'}(${values})`;
  }
  if (typeof value === 'string' && op !== 'ne') {
    // Strings order byte by byte (COLLATE "C"), whatever the database's collation.
    return `${typed} AND (i.properties ->> ${param(key, 'text')}) COLLATE "C" ${COMPARE[op as keyof typeof COMPARE]} ${param(value, 'text')}`;
  }
  return `${typed} AND ${stored} ${COMPARE[op as keyof typeof COMPARE]} ${param(JSON.stringify(value), 'jsonb')}`;
}

/** Skip conditions (docs/api.md#delivery) on `installations i`; `denied` is the parameter holding 'denied'. */
export const notSendable = (denied: string) => ({
  denied: `i.permission = ${denied}`,
  invalidated: `i.invalidated_at IS NOT NULL`,
  noToken: `i.push_token IS NULL AND i.web_push_subscription IS NULL`,
});

/**
 * A topic's audience (docs/api.md#topics-and-preferences), for `installations i` of app `app` and
 * topic `topic` (placeholders). A user is subscribed by their own choice, else by the topic's
 * default; a deleted topic has no subscribers.
 */
export const topicSql = (app: string, topic: string) => {
  const defaultSubscribed = `COALESCE((SELECT t.default_subscribed FROM topics t WHERE t.app_id = ${app} AND t.key = ${topic}), false)`;
  const choice = `(SELECT s.subscribed FROM topic_subscriptions s WHERE s.app_id = ${app} AND s.topic_key = ${topic} AND s.user_id = i.user_id)`;
  return {
    /** The installation's user is not subscribed (no user: the default decides). */
    unsubscribed: `NOT COALESCE(${choice}, ${defaultSubscribed})`,
    /**
     * A walk over the subscribers by user id, after `cursor`, at most `limit`: the explicitly
     * subscribed from topic_subscriptions' key when the default is off, else the users of the app's
     * installations (their (app_id, user_id) index) less those who said no.
     */
    subscribersAfter: (cursor: string, limit: string) => `(
      SELECT a.user_id FROM (SELECT s.user_id FROM topic_subscriptions s
        WHERE NOT ${defaultSubscribed} AND s.app_id = ${app} AND s.topic_key = ${topic} AND s.subscribed AND s.user_id > ${cursor}
        ORDER BY s.user_id LIMIT ${limit}) a
      UNION ALL
      SELECT b.user_id FROM (SELECT DISTINCT u.user_id FROM installations u
        WHERE ${defaultSubscribed} AND u.app_id = ${app} AND u.deleted_at IS NULL AND u.user_id > ${cursor}
        ORDER BY u.user_id LIMIT ${limit}) b)`,
  };
};

/** A marketing send skips the installations of users who turned push off (docs/api.md#preferences). */
export const pushDisabled = (app: string) =>
  `EXISTS (SELECT 1 FROM user_channel_preferences p WHERE p.app_id = ${app} AND p.user_id = i.user_id AND p.push = false)`;

/** A marketing send stores no inbox message for users who turned the inbox off (docs/api.md#inbox-channels). */
export const inboxDisabled = (app: string) =>
  `EXISTS (SELECT 1 FROM user_channel_preferences p WHERE p.app_id = ${app} AND p.user_id = i.user_id AND p.inbox = false)`;

/** Installations a recipients kind selects (all of the app's live ones for `all`), besides app and liveness; its list is the placeholder `list`. */
export function recipientsPredicate(kind: Exclude<RecipientKind, 'filter' | 'all' | 'topic'>, list: string): string {
  switch (kind) {
    case 'user_ids':
      return `i.user_id = ANY(${list}::text[])`;
    case 'installation_ids':
      return `i.installation_id = ANY(${list}::text[])`;
    case 'tags':
      return `i.tags && ${list}::text[]`;
  }
}
