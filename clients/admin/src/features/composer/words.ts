import type { FilterField, FilterOp } from '../../vocabulary';
import type { AudienceKind } from './draft';

/** The filter builder's fields and ops in words (docs/api.md#audience-filters has the API's names). */
export const FIELD_WORDS: Record<FilterField, string> = {
  properties: 'a property…',
  tags: 'tags',
  platform: 'platform',
  permission: 'notification permission',
  language: 'language',
  app_version: 'app version',
  user_id: 'user id',
  last_seen_at: 'last seen',
  registered_at: 'registered',
};

export const OP_WORDS: Record<FilterOp, string> = {
  eq: 'is',
  ne: 'is not',
  in: 'is one of',
  not_in: 'is none of',
  lt: 'is less than',
  lte: 'is at most',
  gt: 'is more than',
  gte: 'is at least',
  exists: 'is set',
  not_exists: 'is not set',
  contains: 'include',
  within_last: 'within the last',
  not_within_last: 'not within the last',
};

/** Time fields read as before/after. */
export const TIME_OP_WORDS: Partial<Record<FilterOp, string>> = { lt: 'before', lte: 'on or before', gt: 'after', gte: 'on or after' };
/** Tags read as "has any tag". */
export const TAG_OP_WORDS: Partial<Record<FilterOp, string>> = { contains: 'include', exists: 'has any tag', not_exists: 'has no tag' };

export const KIND_WORDS: Record<AudienceKind, string> = {
  filter: 'Installations matching conditions',
  user_ids: 'Users by id',
  installation_ids: 'Installations by id',
  tags: 'Installations with tags',
  topic: 'Subscribers of a topic',
  all: 'Everyone',
};

export const CHOICE_WORDS: Record<string, string> = {
  ios: 'iOS',
  android: 'Android',
  web: 'Web',
  huawei: 'Huawei',
  granted: 'granted',
  denied: 'denied',
  unknown: 'not asked yet',
};
