import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn, PrimaryGeneratedColumn } from 'typeorm';
import { App } from '../apps/app.entity';
import type { LiveActivityStatus, LiveActivityUpdateStatus } from '../common/vocabulary';
import { Installation } from '../installations/installation.entity';

/** A running Live Activity (docs/api.md#live-activities); `last_seq` numbers accepted updates, `sent_seq` the newest APNs took. */
@Entity('live_activities')
@Index('live_activities_app_id_activity_id_key', ['appId', 'activityId'], { unique: true })
@Index('live_activities_installation_id_idx', ['installationId'])
export class LiveActivity {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'live_activities_pkey' })
  id: string;

  @Column({ name: 'app_id', type: 'uuid' })
  appId: string;

  @ManyToOne(() => App, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'app_id', foreignKeyConstraintName: 'live_activities_app_id_fkey' })
  app?: App;

  /** The client's id of the activity (ActivityKit's `Activity.id`). */
  @Column({ name: 'activity_id', type: 'varchar', length: 255 })
  activityId: string;

  @Column({ name: 'installation_id', type: 'uuid' })
  installationId: string;

  @ManyToOne(() => Installation, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'installation_id', foreignKeyConstraintName: 'live_activities_installation_id_fkey' })
  installation?: Installation;

  @Column({ name: 'attributes_type', type: 'varchar', length: 128 })
  attributesType: string;

  @Column({ name: 'push_token', type: 'text' })
  pushToken: string;

  @Column({ type: 'varchar', length: 16, default: 'active' satisfies LiveActivityStatus })
  status: LiveActivityStatus;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt: Date;

  @Column({ name: 'updated_at', type: 'timestamptz', default: () => 'now()' })
  updatedAt: Date;

  @Column({ name: 'ended_at', type: 'timestamptz', nullable: true })
  endedAt: Date | null;

  /** APNs' reason when it refused the token (the activity then ended). */
  @Column({ name: 'invalid_reason', type: 'varchar', length: 255, nullable: true })
  invalidReason: string | null;

  @Column({ name: 'last_seq', type: 'bigint', default: 0 })
  lastSeq: string;

  @Column({ name: 'last_accepted_at', type: 'timestamptz', nullable: true })
  lastAcceptedAt: Date | null;

  @Column({ name: 'sent_seq', type: 'bigint', default: 0 })
  sentSeq: string;
}

/** One update or end of an activity, numbered (`seq`) in the order the API accepted them. */
@Entity('live_activity_updates')
@Index('live_activity_updates_live_activity_id_seq_key', ['liveActivityId', 'seq'], { unique: true })
export class LiveActivityUpdate {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'live_activity_updates_pkey' })
  id: string;

  @Column({ name: 'live_activity_id', type: 'uuid' })
  liveActivityId: string;

  @ManyToOne(() => LiveActivity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'live_activity_id', foreignKeyConstraintName: 'live_activity_updates_live_activity_id_fkey' })
  liveActivity?: LiveActivity;

  @Column({ type: 'bigint' })
  seq: string;

  /** update or end. */
  @Column({ type: 'varchar', length: 16 })
  event: string;

  /** What the payload is built from: content_state, alert, stale_date, dismissal_date, relevance_score. */
  @Column({ type: 'jsonb' })
  content: Record<string, unknown>;

  @Column({ type: 'varchar', length: 8 })
  priority: string;

  @Column({ name: 'accepted_at', type: 'timestamptz' })
  acceptedAt: Date;

  @Column({ type: 'varchar', length: 16, default: 'pending' satisfies LiveActivityUpdateStatus })
  status: LiveActivityUpdateStatus;

  @Column({ type: 'varchar', length: 255, nullable: true })
  reason: string | null;

  @Column({ type: 'int', default: 0 })
  attempts: number;

  @Column({ name: 'updated_at', type: 'timestamptz', default: () => 'now()' })
  updatedAt: Date;
}

/** An iOS 18 broadcast channel the app created at APNs (docs/api.md#live-activity-channels), by APNs' channel id. */
@Entity('live_activity_channels')
export class LiveActivityChannel {
  @PrimaryColumn({ name: 'app_id', type: 'uuid', primaryKeyConstraintName: 'live_activity_channels_pkey' })
  appId: string;

  @ManyToOne(() => App, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'app_id', foreignKeyConstraintName: 'live_activity_channels_app_id_fkey' })
  app?: App;

  @PrimaryColumn({ type: 'varchar', length: 255, primaryKeyConstraintName: 'live_activity_channels_pkey' })
  id: string;

  /** `none` or `most_recent` (APNs' message-storage-policy 0 or 1). */
  @Column({ type: 'varchar', length: 16 })
  storage: string;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt: Date;
}

/** One broadcast to a channel (docs/api.md#live-activity-channels), sent and retried by the worker. */
@Entity('live_activity_broadcasts')
@Index('live_activity_broadcasts_pending_idx', ['updatedAt'], { where: `status = 'pending'` })
@Index('live_activity_broadcasts_app_id_idx', ['appId'])
export class LiveActivityBroadcast {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'live_activity_broadcasts_pkey' })
  id: string;

  @Column({ name: 'app_id', type: 'uuid' })
  appId: string;

  @ManyToOne(() => App, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'app_id', foreignKeyConstraintName: 'live_activity_broadcasts_app_id_fkey' })
  app?: App;

  @Column({ name: 'channel_id', type: 'varchar', length: 255 })
  channelId: string;

  @Column({ type: 'varchar', length: 16 })
  event: string;

  @Column({ type: 'jsonb' })
  content: Record<string, unknown>;

  @Column({ type: 'varchar', length: 8 })
  priority: string;

  @Column({ name: 'accepted_at', type: 'timestamptz' })
  acceptedAt: Date;

  @Column({ type: 'varchar', length: 16, default: 'pending' satisfies LiveActivityUpdateStatus })
  status: LiveActivityUpdateStatus;

  @Column({ type: 'varchar', length: 255, nullable: true })
  reason: string | null;

  @Column({ type: 'int', default: 0 })
  attempts: number;

  @Column({ name: 'updated_at', type: 'timestamptz', default: () => 'now()' })
  updatedAt: Date;
}
