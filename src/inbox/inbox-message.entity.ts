import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { App } from '../apps/app.entity';

/** One user's copy of a send (docs/api.md#inbox); inbox.repository.ts reads and writes it, the fan-out's chunk stores it. */
@Entity('inbox_messages')
@Index('inbox_messages_notification_id_user_id_key', ['notificationId', 'userId'], { unique: true })
@Index('inbox_messages_expires_at_idx', ['expiresAt'])
// Descending, and partial with INCLUDE: written by migrations Inbox and InboxStateIndexes only.
@Index('inbox_messages_user_idx', { synchronize: false })
@Index('inbox_messages_unread_idx', { synchronize: false })
@Index('inbox_messages_inbox_idx', { synchronize: false })
@Index('inbox_messages_read_idx', { synchronize: false })
@Index('inbox_messages_archived_idx', { synchronize: false })
export class InboxMessage {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'inbox_messages_pkey' })
  id: string;

  @Column({ name: 'app_id', type: 'uuid' })
  appId: string;

  @ManyToOne(() => App, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'app_id', foreignKeyConstraintName: 'inbox_messages_app_id_fkey' })
  app?: App;

  @Column({ name: 'user_id', type: 'varchar', length: 255 })
  userId: string;

  /** No foreign key: a message outlives its notification's retention. */
  @Column({ name: 'notification_id', type: 'uuid' })
  notificationId: string;

  @Column({ type: 'text', nullable: true })
  title: string | null;

  @Column({ type: 'text', nullable: true })
  body: string | null;

  @Column({ name: 'image_url', type: 'text', nullable: true })
  imageUrl: string | null;

  @Column({ name: 'action_url', type: 'text', nullable: true })
  actionUrl: string | null;

  @Column({ type: 'jsonb', nullable: true })
  data: Record<string, unknown> | null;

  @Column({ type: 'varchar', length: 64, nullable: true })
  topic: string | null;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt: Date;

  @Column({ name: 'read_at', type: 'timestamptz', nullable: true })
  readAt: Date | null;

  @Column({ name: 'archived_at', type: 'timestamptz', nullable: true })
  archivedAt: Date | null;

  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt: Date;
}
