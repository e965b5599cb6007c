import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { App } from '../apps/app.entity';
import { type Platform, WebPushSubscription } from '../common/platform';
import type { Permission } from '../common/vocabulary';
import type { PropertyValue } from '../common/validation/domain-rules';

export { PLATFORMS } from '../common/platform';
export type { Platform, WebPushSubscription } from '../common/platform';

export { PERMISSIONS } from '../common/vocabulary';
export type { Permission } from '../common/vocabulary';

export interface Device {
  app_version: string | null;
  os_version: string | null;
  model: string | null;
  locale: string | null;
  timezone: string | null;
}

/** Deleting keeps the row (deliveries refer to it) but clears its personal data and token. */
@Entity('installations')
@Index('installations_app_id_installation_id_key', ['appId', 'installationId'], { unique: true })
@Index('installations_app_id_user_id_idx', ['appId', 'userId'])
// Expression indexes TypeORM cannot declare (migrations Audiences, FilterSendAudiences).
@Index('installations_app_version_idx', { synchronize: false })
@Index('installations_language_idx', { synchronize: false })
export class Installation {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ name: 'app_id', type: 'uuid' })
  appId: string;

  @ManyToOne(() => App, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'app_id', foreignKeyConstraintName: 'installations_app_id_fkey' })
  app?: App;

  @Column({ name: 'installation_id', type: 'varchar', length: 255 })
  installationId: string;

  @Column({ type: 'varchar', length: 16 })
  platform: Platform;

  @Column({ name: 'push_token', type: 'text', nullable: true })
  pushToken: string | null;

  @Column({ name: 'web_push_subscription', type: 'jsonb', nullable: true })
  webPushSubscription: WebPushSubscription | null;

  @Column({ type: 'jsonb', default: () => `'{}'` })
  device: Partial<Device>;

  @Column({ name: 'user_id', type: 'varchar', length: 255, nullable: true })
  userId: string | null;

  @Column({ type: 'varchar', length: 16, default: 'unknown' })
  permission: Permission;

  @Column({ name: 'registered_at', type: 'timestamptz' })
  registeredAt: Date;

  @Column({ name: 'last_seen_at', type: 'timestamptz' })
  lastSeenAt: Date;

  @Column({ name: 'identifier_updated_at', type: 'timestamptz', nullable: true })
  identifierUpdatedAt: Date | null;

  @Column({ name: 'permission_updated_at', type: 'timestamptz', nullable: true })
  permissionUpdatedAt: Date | null;

  @Column({ name: 'invalidated_at', type: 'timestamptz', nullable: true })
  invalidatedAt: Date | null;

  @Column({ name: 'invalid_reason', type: 'varchar', length: 255, nullable: true })
  invalidReason: string | null;

  @Column({ name: 'deleted_at', type: 'timestamptz', nullable: true })
  deletedAt: Date | null;

  @Index('installations_tags_idx', { synchronize: false })
  @Column({ type: 'text', array: true, default: () => `'{}'` })
  tags: string[];

  @Index('installations_properties_idx', { synchronize: false })
  @Column({ type: 'jsonb', default: () => `'{}'` })
  properties: Record<string, PropertyValue>;

  /** By ActivityAttributes type name (docs/api.md#live-activity-start-tokens); write-only. */
  @Column({ name: 'live_activity_start_tokens', type: 'jsonb', default: () => `'{}'` })
  liveActivityStartTokens: Record<string, string>;

  /** iOS: the WidgetKit push token (docs/api.md#widgets); write-only. */
  @Column({ name: 'widget_push_token', type: 'varchar', length: 200, nullable: true })
  widgetPushToken: string | null;
}
