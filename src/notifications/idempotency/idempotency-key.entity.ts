import { Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { App } from '../../apps/app.entity';

export type IdempotencyStatus = 'in_progress' | 'completed';

/**
 * One `Idempotency-Key` of one app, kept 24 hours. The primary key makes claiming it atomic;
 * `locked_until` lets a retry take over a claim whose request died without releasing it.
 */
@Entity('idempotency_keys')
@Index('idempotency_keys_expires_at_idx', ['expiresAt'])
export class IdempotencyKey {
  @PrimaryColumn({ name: 'app_id', type: 'uuid' })
  appId: string;

  @ManyToOne(() => App, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'app_id', foreignKeyConstraintName: 'idempotency_keys_app_id_fkey' })
  app?: App;

  @PrimaryColumn({ type: 'varchar', length: 255 })
  key: string;

  @Column({ name: 'request_hash', type: 'char', length: 64 })
  requestHash: string;

  @Column({ type: 'varchar', length: 16 })
  status: IdempotencyStatus;

  @Column({ name: 'response_status', type: 'integer', nullable: true })
  responseStatus: number | null;

  /** The first answer's body exactly as it was sent (JSON text), so a replay is byte-identical. */
  @Column({ name: 'response_body', type: 'text', nullable: true })
  responseBody: string | null;

  /** The send the request stored, written with it; the answer follows (docs/api.md#idempotency). */
  @Column({ name: 'notification_id', type: 'uuid', nullable: true })
  notificationId: string | null;

  @Column({ name: 'locked_until', type: 'timestamptz' })
  lockedUntil: Date;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt: Date;
}
