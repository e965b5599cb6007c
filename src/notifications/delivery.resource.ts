import { iso } from '../common/time';
import type { TraceRow } from './delivery-trace.repository';

/** One entry of the delivery trace (docs/api.md#delivery-trace). */
export function toDeliveryResource(row: TraceRow) {
  return {
    installation_id: row.installation_id,
    user_id: row.user_id,
    platform: row.platform,
    status: row.status,
    reason: row.reason,
    attempts: row.attempts,
    scheduled_for: iso(row.scheduled_for),
    updated_at: iso(row.updated_at),
    received_at: iso(row.received_at),
    displayed_at: iso(row.displayed_at),
    opened_at: iso(row.opened_at),
    opened_action: row.opened_action,
  };
}

export type DeliveryResource = ReturnType<typeof toDeliveryResource>;
