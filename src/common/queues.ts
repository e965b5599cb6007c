/**
 * Queue names and job payloads: the only thing `notifications` (the producer, in the API) and
 * `delivery` (the consumer, in the worker) share.
 */
export const FANOUT_QUEUE = 'fanout';
export const DELIVER_QUEUE = 'deliver';
export const MAINTENANCE_QUEUE = 'maintenance';
export const QUEUES = [FANOUT_QUEUE, DELIVER_QUEUE, MAINTENANCE_QUEUE] as const;

export interface FanoutJob {
  notificationId: string;
}

export interface DeliverJob {
  notificationId: string;
  batch: number;
}

/** BullMQ ids must not contain ':' nor be all digits; a re-enqueue with the same id is a no-op. */
export const fanoutJobId = (notificationId: string) => `fanout-${notificationId}`;
export const deliverJobId = (notificationId: string, batch: number, suffix?: string) =>
  `deliver-${notificationId}-${batch}${suffix ? `-${suffix}` : ''}`;
