import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';

/** The outcomes a minute counts: what a delivery row became (`pending` again: a retry). */
export type MinuteOutcome = 'accepted' | 'failed' | 'skipped' | 'pending';

/**
 * How many outcomes of one kind a notification had in one minute, added to by every statement that
 * ends deliveries (common/minute-counts.ts: the outcomes of attempts, the fan-out's and a cancel's
 * skips), once per write: the dashboard's time series read these, never `deliveries` (migration
 * DeliveryMinutes).
 */
@Entity('delivery_minutes')
@Index('delivery_minutes_minute_idx', ['minute'])
export class DeliveryMinute {
  @PrimaryColumn({ name: 'notification_id', type: 'uuid' })
  notificationId: string;

  @PrimaryColumn({ type: 'timestamptz' })
  minute: Date;

  @PrimaryColumn({ type: 'varchar', length: 16 })
  outcome: MinuteOutcome;

  // By entity name, as delivery.entity.ts: delivery imports no feature.
  @ManyToOne('Notification', { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'notification_id', foreignKeyConstraintName: 'delivery_minutes_notification_id_fkey' })
  notification?: unknown;

  @Column({ type: 'integer' })
  count: number;
}
