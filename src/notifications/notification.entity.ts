import { Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { App } from '../apps/app.entity';
import { NotificationOptions } from '../common/notification-options';

export type { NotificationOptions };

/**
 * A send. `user_ids` is the de-duplicated target list that the fan-out reads; the counters are the
 * statistics of docs/api.md#notification-resource, updated by the workers.
 */
@Entity('notifications')
@Index('notifications_app_id_created_at_idx', ['appId', 'createdAt', 'id'])
@Index('notifications_unfinished_idx', ['createdAt'], { where: 'completed_at IS NULL' })
@Index('notifications_processing_started_at_idx', ['processingStartedAt'])
@Index('notifications_ab_due_idx', ['abDueAt'], { where: "ab_phase = 'sample'" })
export class Notification {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ name: 'app_id', type: 'uuid' })
  appId: string;

  @ManyToOne(() => App, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'app_id', foreignKeyConstraintName: 'notifications_app_id_fkey' })
  app?: App;

  /** Null for a silent send without `notification` (docs/api.md#silent-sends). */
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

  @Column({ type: 'jsonb', nullable: true })
  options: NotificationOptions | null;

  @Column({ name: 'user_ids', type: 'text', array: true })
  userIds: string[];

  @Column({ name: 'target_users', type: 'integer' })
  targetUsers: number;

  @Column({ name: 'stat_users', type: 'integer', default: 0 })
  statUsers: number;

  @Column({ name: 'stat_installations', type: 'integer', default: 0 })
  statInstallations: number;

  @Column({ name: 'stat_accepted', type: 'integer', default: 0 })
  statAccepted: number;

  @Column({ name: 'stat_received', type: 'integer', default: 0 })
  statReceived: number;

  @Column({ name: 'stat_displayed', type: 'integer', default: 0 })
  statDisplayed: number;

  @Column({ name: 'stat_opened', type: 'integer', default: 0 })
  statOpened: number;

  @Column({ name: 'stat_failed', type: 'integer', default: 0 })
  statFailed: number;

  @Column({ name: 'stat_skipped', type: 'integer', default: 0 })
  statSkipped: number;

  @Column({ name: 'stat_inbox_stored', type: 'integer', default: 0 })
  statInboxStored: number;

  @Column({ name: 'stat_inbox_read', type: 'integer', default: 0 })
  statInboxRead: number;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  /** Set once, when the fan-out begins; its deliveries and events are partitioned by it. */
  @Column({ name: 'processing_started_at', type: 'timestamptz', nullable: true })
  processingStartedAt: Date | null;

  @Column({ name: 'completed_at', type: 'timestamptz', nullable: true })
  completedAt: Date | null;

  /** How many of `user_ids` the fan-out has processed, so a restarted fan-out resumes there. */
  @Column({ name: 'fanout_position', type: 'integer', default: 0 })
  fanoutPosition: number;

  /** Delivery batches numbered so far. */
  @Column({ name: 'fanout_batches', type: 'integer', default: 0 })
  fanoutBatches: number;

  @Column({ name: 'fanned_out_at', type: 'timestamptz', nullable: true })
  fannedOutAt: Date | null;

  /** `user_ids`, `installation_ids`, `tags` or `all` (docs/api.md#recipients). */
  @Column({ name: 'recipient_kind', type: 'varchar', length: 16, default: 'user_ids' })
  recipientKind: string;

  @Column({ name: 'installation_ids', type: 'text', array: true, nullable: true })
  installationIds: string[] | null;

  @Column({ type: 'text', array: true, nullable: true })
  tags: string[] | null;

  /** The `recipients.filter` of a filter send (docs/api.md#audience-filters), as given. */
  @Column({ name: 'recipient_filter', type: 'jsonb', nullable: true })
  recipientFilter: object | null;

  /** The last installation_id a tags or all fan-out covered (it walks them in order). */
  @Column({ name: 'fanout_cursor', type: 'varchar', length: 255, nullable: true })
  fanoutCursor: string | null;

  /** A filter send's audience, staged when its fan-out began: how many chunks (fanout_audiences); null before. */
  @Column({ name: 'fanout_audience_chunks', type: 'integer', nullable: true })
  fanoutAudienceChunks: number | null;

  /** A throttled send's audience, counted when its fan-out began (docs/api.md#pacing); null for other sends. */
  @Column({ name: 'fanout_audience', type: 'integer', nullable: true })
  fanoutAudience: number | null;

  @Column({ name: 'send_at', type: 'timestamptz', nullable: true })
  sendAt: Date | null;

  @Column({ name: 'canceled_at', type: 'timestamptz', nullable: true })
  canceledAt: Date | null;

  /** Why the send failed before any delivery (NotificationFailureReason), or null. */
  @Column({ name: 'failure_reason', type: 'text', nullable: true })
  failureReason: string | null;

  /** json (not jsonb) keeps the keys' request order, which the matching rule uses (docs/api.md#localization). */
  @Column({ type: 'json', nullable: true })
  localizations: Record<string, unknown> | null;

  /** The template a send used (docs/api.md#sending-with-a-template): `{key, version}`, or null. */
  @Column({ type: 'jsonb', nullable: true })
  template: { key: string; version: number } | null;

  /** A template's or personalized send's `variables`, rendered as `vars.*` (docs/api.md#liquid); null otherwise. */
  @Column({ type: 'jsonb', nullable: true })
  variables: Record<string, unknown> | null;

  /** A send's variants (docs/api.md#variants), their templates resolved: `[{key, weight, notification, template, variables}]`; null without. */
  @Column({ type: 'jsonb', nullable: true })
  variants: unknown[] | null;

  /** An A/B test's phase (docs/api.md#a-b-test-with-a-winner): `sample` until decided, then `winner`; null without a test. */
  @Column({ name: 'ab_phase', type: 'varchar', length: 8, nullable: true })
  abPhase: string | null;

  /** When the test is decided: the fan-out's start plus `winner_after`; null until the fan-out starts. */
  @Column({ name: 'ab_due_at', type: 'timestamptz', nullable: true })
  abDueAt: Date | null;

  /** The winning variant's key, once decided. */
  @Column({ name: 'ab_winner', type: 'varchar', length: 16, nullable: true })
  abWinner: string | null;

  @Column({ name: 'ab_decided_at', type: 'timestamptz', nullable: true })
  abDecidedAt: Date | null;
}
