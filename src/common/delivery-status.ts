/**
 * The states of one delivery (docs/api.md#delivery and docs/api.md#delivery-trace): `scheduled` until its local time (11),
 * `pending` when due (or waiting for a retry), `sending` while a provider is asked, then one of
 * the three ends. The worker writes them; the delivery trace filters on them.
 */
export const DELIVERY_STATUSES = ['scheduled', 'pending', 'sending', 'accepted', 'failed', 'skipped'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];
