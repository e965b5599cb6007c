import { Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import type { WebhookMessageStatus } from '../common/vocabulary';
import { WEBHOOK_FINISHED, WEBHOOK_OWED } from '../common/webhook-events';
import { Webhook } from './webhook.entity';

/**
 * The webhook outbox: one event for one endpoint. The statement that changes the state writes it
 * (common/webhook-events.ts), so a crash cannot lose it; the worker then calls the endpoint until
 * it answers 2xx ("delivered") or WEBHOOK_MAX_ATTEMPTS run out ("failed"). Its id is the
 * `webhook-id` header, the same on every attempt.
 */
@Entity('webhook_messages')
@Index('webhook_messages_due_idx', ['dueAt'], { where: WEBHOOK_OWED })
@Index('webhook_messages_webhook_id_idx', ['webhookId'])
@Index('webhook_messages_finished_idx', ['finishedAt'], { where: WEBHOOK_FINISHED })
export class WebhookMessage {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'webhook_messages_pkey' })
  id: string;

  @Column({ name: 'webhook_id', type: 'uuid' })
  webhookId: string;

  @ManyToOne(() => Webhook, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'webhook_id', foreignKeyConstraintName: 'webhook_messages_webhook_id_fkey' })
  webhook?: Webhook;

  /** notification.completed, notification.canceled or installation.invalidated. */
  @Column({ type: 'varchar', length: 64 })
  type: string;

  /** The notification's or the installation's id; its resource is read when the body is made. */
  @Column({ name: 'subject_id', type: 'uuid' })
  subjectId: string;

  /** When the event happened: the body's `timestamp`. */
  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  /** The JSON body, made at the first attempt and kept, so every attempt sends the same bytes. */
  @Column({ type: 'text', nullable: true })
  body: string | null;

  /** pending, delivered or failed. */
  @Column({ type: 'varchar', length: 16, default: 'pending' satisfies WebhookMessageStatus })
  status: WebhookMessageStatus;

  @Column({ type: 'int', default: 0 })
  attempts: number;

  /**
   * When the dispatcher should queue it (again): now for a new message; the next attempt (plus a
   * grace period) once queued, so a job lost with Redis is queued again once it is overdue.
   */
  @Column({ name: 'due_at', type: 'timestamptz', default: () => 'now()' })
  dueAt: Date;

  /** Why the last attempt failed: the status code or the network error. */
  @Column({ name: 'last_error', type: 'varchar', length: 255, nullable: true })
  lastError: string | null;

  @Column({ name: 'finished_at', type: 'timestamptz', nullable: true })
  finishedAt: Date | null;
}
