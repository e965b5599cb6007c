import { iso } from '../../common/time';
import { STILL_TO_SEND } from '../../common/vocabulary';
import { bestLocalization } from '../../delivery/providers/payloads';
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
    provider_message_id: row.provider_message_id,
    scheduled_for: iso(row.scheduled_for),
    updated_at: iso(row.updated_at),
    received_at: iso(row.received_at),
    displayed_at: iso(row.displayed_at),
    opened_at: iso(row.opened_at),
    opened_action: row.opened_action,
    variant: row.variant ?? null,
  };
}

export type DeliveryResource = ReturnType<typeof toDeliveryResource>;

/**
 * The operator dashboard's view of a trace entry: the API's, plus when a delivery still to send is
 * next attempted (its local time or send_at, or its next retry) and which of the notification's
 * `localizations` (its keys, in request order) the installation's locale picks
 * (docs/api.md#localization), null for the default content.
 */
export const operatorDelivery =
  (localizations: readonly string[]) =>
  (row: TraceRow): OperatorDelivery => ({
    ...toDeliveryResource(row),
    next_attempt_at: (STILL_TO_SEND as readonly string[]).includes(row.status) ? iso(row.next_attempt_at) : null,
    localization: bestLocalization(localizations, row.locale),
  });

export type OperatorDelivery = DeliveryResource & { next_attempt_at: string | null; localization: string | null };
