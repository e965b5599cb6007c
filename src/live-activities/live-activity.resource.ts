import { iso } from '../common/time';
import type { LiveActivityRow, LiveActivityUpdateRow, LiveActivityWithLastUpdateRow } from './live-activities.repository';

/** The LiveActivity resource (docs/api.md#live-activities): every field present, the token never shown. */
export function toLiveActivityResource(row: LiveActivityRow) {
  return {
    activity_id: row.activity_id,
    installation_id: row.installation_key,
    attributes_type: row.attributes_type,
    status: row.status,
    created_at: iso(row.created_at)!,
    updated_at: iso(row.updated_at)!,
    ended_at: iso(row.ended_at),
    invalid_reason: row.invalid_reason,
  };
}

/** A LiveActivityUpdate (docs/api.md#live-activity-updates); `created_at` is the instant the API accepted it. */
export function toLiveActivityUpdateResource(activityId: string, row: LiveActivityUpdateRow) {
  return {
    id: row.id,
    activity_id: activityId,
    event: row.event,
    status: row.status,
    reason: row.reason,
    created_at: iso(row.accepted_at)!,
  };
}

/**
 * For the operator dashboard: the LiveActivity resource and its newest update, with `seq` (the
 * order the API accepted them in) and `updated_at` (when its status was last set); null without one.
 */
export function toActivityWithLastUpdate(row: LiveActivityWithLastUpdateRow) {
  return {
    ...toLiveActivityResource(row),
    last_update:
      row.last_id === null
        ? null
        : {
            id: row.last_id,
            seq: Number(row.last_seq),
            event: row.last_event!,
            status: row.last_status!,
            reason: row.last_reason,
            created_at: iso(row.last_accepted_at)!,
            updated_at: iso(row.last_updated_at)!,
          },
  };
}

export type LiveActivityResource = ReturnType<typeof toLiveActivityResource>;
export type LiveActivityUpdateResource = ReturnType<typeof toLiveActivityUpdateResource>;
export type ActivityWithLastUpdate = ReturnType<typeof toActivityWithLastUpdate>;
