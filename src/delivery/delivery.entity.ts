import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import type { DeliveryStatus } from '../common/vocabulary';

/** One message to one installation; no index may cover a column outcomes change, so updates stay heap-only. */
@Entity('deliveries')
@Index('deliveries_notification_id_batch_idx', ['notificationId', 'batch'])
export class Delivery {
  @PrimaryColumn({ name: 'notification_id', type: 'uuid' })
  notificationId: string;

  @PrimaryColumn({ name: 'installation_id', type: 'uuid' })
  installationId: string;

  /** The notification's processing_started_at: the weekly partition key, in the primary key as PostgreSQL requires. */
  @PrimaryColumn({ name: 'notification_started_at', type: 'timestamptz' })
  notificationStartedAt: Date;

  // By entity name: delivery imports neither feature (docs/architecture.md); the keys are the same.
  @ManyToOne('Notification', { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'notification_id', foreignKeyConstraintName: 'deliveries_notification_id_fkey' })
  notification?: unknown;

  // No foreign key (docs/decisions/0004-no-foreign-key-from-deliveries-to-installations.md).
  @ManyToOne('Installation', { createForeignKeyConstraints: false })
  @JoinColumn({ name: 'installation_id' })
  installation?: unknown;

  @Column({ type: 'varchar', length: 16 })
  platform: string;

  /** The installation's user at fan-out, for the trace (docs/api.md#delivery-trace); written once. */
  @Column({ name: 'user_id', type: 'varchar', length: 255, nullable: true })
  userId: string | null;

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

  /** The provider's id of the accepted message (docs/api.md#delivery-trace), written with the outcome. */
  @Column({ name: 'provider_message_id', type: 'varchar', length: 255, nullable: true })
  providerMessageId: string | null;

  /** Its variant (docs/api.md#variants): the index in the notification's `variants`; null for a send without, or one held for an A/B test's winner. */
  @Column({ type: 'smallint', nullable: true })
  variant: number | null;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
