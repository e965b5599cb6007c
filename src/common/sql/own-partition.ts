/**
 * Names the one partition that holds a notification's rows (delivery/delivery.entity.ts), for
 * statements that know only its id: PostgreSQL then runs them on that partition alone.
 */
export const ownPartition = (alias: string, notificationId: string) =>
  `${alias}.notification_started_at = (SELECT processing_started_at FROM notifications WHERE id = ${notificationId})`;
