import type { FilterNode } from '../common/audience-filter';
import type { NewNotification } from '../common/notification';
import { GenerateSql, GenerateSqlCase } from './generate-sql';

/**
 * The values the SQL files' cases (`@GenerateSql`, src/queries/generate-sql.ts) call the
 * repositories with. They import no repository, so no repository's cases make a circle.
 */

export const ID = '00000000-0000-4000-8000-000000000001';
export const OTHER_ID = '00000000-0000-4000-8000-000000000002';
export const AT = new Date('2026-01-05T00:00:00.000Z');

/** A week of a partitioned table (delivery/retention). */
export const WEEK = { name: 'deliveries_p20260105', from: AT, to: new Date('2026-01-12T00:00:00.000Z') };

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
  template: null,
  variables: null,
  variants: null,
  ab_phase: null,
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

/** Several cases of one method, in the order given. */
export const cases =
  (list: GenerateSqlCase[]): MethodDecorator =>
  (prototype, method, descriptor) => {
    // GenerateSql puts each case before the method's cases already there.
    for (const sqlCase of [...list].reverse()) GenerateSql(sqlCase)(prototype, method, descriptor);
  };
