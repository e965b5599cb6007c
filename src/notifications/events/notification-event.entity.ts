import { Column, CreateDateColumn, Entity, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { Installation } from '../../installations/installation.entity';
import { Notification } from '../notification.entity';

export const EVENT_TYPES = ['received', 'displayed', 'opened'] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** A client-reported event, counted once per (notification, installation, type). */
@Entity('notification_events')
export class NotificationEvent {
  @PrimaryColumn({ name: 'notification_id', type: 'uuid' })
  notificationId: string;

  @PrimaryColumn({ name: 'installation_id', type: 'uuid' })
  installationId: string;

  @PrimaryColumn({ type: 'varchar', length: 16 })
  type: EventType;

  /** The notification's `processing_started_at`: the partition key, as on deliveries (delivery.entity.ts). */
  @PrimaryColumn({ name: 'notification_started_at', type: 'timestamptz' })
  notificationStartedAt: Date;

  @ManyToOne(() => Notification, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'notification_id', foreignKeyConstraintName: 'notification_events_notification_id_fkey' })
  notification?: Notification;

  @ManyToOne(() => Installation, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'installation_id', foreignKeyConstraintName: 'notification_events_installation_id_fkey' })
  installation?: Installation;

  /** The web button clicked, for `opened` (docs/api.md#reads-and-events). */
  @Column({ type: 'varchar', length: 64, nullable: true })
  action: string | null;

  @Column({ name: 'occurred_at', type: 'timestamptz' })
  occurredAt: Date;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
