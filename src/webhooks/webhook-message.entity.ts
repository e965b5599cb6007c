import { Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import type { WebhookMessageStatus } from '../common/vocabulary';
import { WEBHOOK_FINISHED, WEBHOOK_OWED } from '../common/webhook-events';
import { Webhook } from './webhook.entity';

/** The webhook outbox, written by the statement that changes the state (common/webhook-events.ts); its id is the `webhook-id` header. */
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

  @Column({ type: 'varchar', length: 64 })
  type: string;

  @Column({ name: 'subject_id', type: 'uuid' })
  subjectId: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  /** Made at the first attempt and kept: every attempt sends the same bytes. */
  @Column({ type: 'text', nullable: true })
  body: string | null;

  @Column({ type: 'varchar', length: 16, default: 'pending' satisfies WebhookMessageStatus })
  status: WebhookMessageStatus;

  @Column({ type: 'int', default: 0 })
  attempts: number;

  /** When the dispatcher queues it (again): past the next attempt plus grace, a job lost with Redis is queued again. */
  @Column({ name: 'due_at', type: 'timestamptz', default: () => 'now()' })
  dueAt: Date;

  @Column({ name: 'last_error', type: 'varchar', length: 255, nullable: true })
  lastError: string | null;

  @Column({ name: 'finished_at', type: 'timestamptz', nullable: true })
  finishedAt: Date | null;
}
