import type { FilterNode } from '../common/audience-filter';
import type { ChunkParams } from '../delivery/fan-out/fan-out.repository';
import type { InstallationChanges, NewInstallation } from '../installations/installations.repository';
import type { NewLiveActivityUpdate } from '../live-activities/live-activities.repository';
import type { NewNotification } from '../notifications/notifications.repository';

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
