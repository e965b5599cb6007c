import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import type { DeliveryStatus } from '../common/vocabulary';

/**
 * One message of a notification to one installation. No index may cover a column its outcome
 * updates change: they stay heap-only (fillfactor 50, migration DeliveriesHotUpdates).
 */
@Entity('deliveries')
@Index('deliveries_notification_id_batch_idx', ['notificationId', 'batch'])
export class Delivery {
  @PrimaryColumn({ name: 'notification_id', type: 'uuid' })
  notificationId: string;

  @PrimaryColumn({ name: 'installation_id', type: 'uuid' })
  installationId: string;

  /**
   * The notification's `processing_started_at`, equal on all its rows: the table is partitioned by
   * week on it, so retention drops whole weeks (migration PartitionedDeliveries). In the primary
   * key because PostgreSQL requires the partition key there; it adds no uniqueness.
   */
  @PrimaryColumn({ name: 'notification_started_at', type: 'timestamptz' })
  notificationStartedAt: Date;

  // By entity name: delivery imports neither feature (docs/architecture.md); the keys are the same.
  @ManyToOne('Notification', { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'notification_id', foreignKeyConstraintName: 'deliveries_notification_id_fkey' })
  notification?: unknown;

  // No foreign key (migration DeliveriesWithoutInstallationKey): a per-row check and lock at
  // fan-out for what the schema already guarantees; an app's deletion reaches its deliveries
  // through its notifications.
  @ManyToOne('Installation', { createForeignKeyConstraints: false })
  @JoinColumn({ name: 'installation_id' })
  installation?: unknown;

  @Column({ type: 'varchar', length: 16 })
  platform: string;

  /**
   * The installation's user when the fan-out considered it, for the delivery trace
   * (docs/api.md#delivery-trace): the installation's own may change later, or be cleared by its deletion. Written once.
   */
  @Column({ name: 'user_id', type: 'varchar', length: 255, nullable: true })
  userId: string | null;

  /** Delivery jobs work on one batch of a notification each. */
  @Column({ type: 'integer' })
  batch: number;

  @Column({ type: 'varchar', length: 16 })
  status: DeliveryStatus;

  @Column({ type: 'varchar', length: 255, nullable: true })
  reason: string | null;

  @Column({ type: 'integer', default: 0 })
  attempts: number;

  @Column({ name: 'next_attempt_at', type: 'timestamptz', nullable: true })
  nextAttemptAt: Date | null;

  /** When it is due: its local time or the send's send_at (docs/api.md#scheduling); null for an immediate send. */
  @Column({ name: 'scheduled_for', type: 'timestamptz', nullable: true })
  scheduledFor: Date | null;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
