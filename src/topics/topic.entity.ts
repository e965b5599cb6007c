import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { App } from '../apps/app.entity';

/** What an app's users can subscribe to (docs/api.md#topics). */
@Entity('topics')
export class Topic {
  @PrimaryColumn({ name: 'app_id', type: 'uuid', primaryKeyConstraintName: 'topics_pkey' })
  appId: string;

  @ManyToOne(() => App, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'app_id', foreignKeyConstraintName: 'topics_app_id_fkey' })
  app?: App;

  @PrimaryColumn({ type: 'varchar', length: 64, primaryKeyConstraintName: 'topics_pkey' })
  key: string;

  @Column({ type: 'varchar', length: 100 })
  name: string;

  @Column({ type: 'varchar', length: 500, nullable: true })
  description: string | null;

  @Column({ name: 'default_subscribed', type: 'boolean' })
  defaultSubscribed: boolean;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt: Date;

  @Column({ name: 'updated_at', type: 'timestamptz', default: () => 'now()' })
  updatedAt: Date;
}

/** A user's own choice for a topic; no row: the topic's default. */
@Entity('topic_subscriptions')
@Index('topic_subscriptions_user_idx', ['appId', 'userId'])
export class TopicSubscription {
  @PrimaryColumn({ name: 'app_id', type: 'uuid', primaryKeyConstraintName: 'topic_subscriptions_pkey' })
  appId: string;

  @ManyToOne(() => App, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'app_id', foreignKeyConstraintName: 'topic_subscriptions_app_id_fkey' })
  app?: App;

  @PrimaryColumn({ name: 'topic_key', type: 'varchar', length: 64, primaryKeyConstraintName: 'topic_subscriptions_pkey' })
  topicKey: string;

  @PrimaryColumn({ name: 'user_id', type: 'varchar', length: 255, primaryKeyConstraintName: 'topic_subscriptions_pkey' })
  userId: string;

  @Column({ type: 'boolean' })
  subscribed: boolean;

  @Column({ name: 'updated_at', type: 'timestamptz', default: () => 'now()' })
  updatedAt: Date;
}

/** A user's channel choices (docs/api.md#preferences); null: the default (on). */
@Entity('user_channel_preferences')
export class UserChannelPreferences {
  @PrimaryColumn({ name: 'app_id', type: 'uuid', primaryKeyConstraintName: 'user_channel_preferences_pkey' })
  appId: string;

  @ManyToOne(() => App, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'app_id', foreignKeyConstraintName: 'user_channel_preferences_app_id_fkey' })
  app?: App;

  @PrimaryColumn({ name: 'user_id', type: 'varchar', length: 255, primaryKeyConstraintName: 'user_channel_preferences_pkey' })
  userId: string;

  @Column({ type: 'boolean', nullable: true })
  push: boolean | null;

  @Column({ type: 'boolean', nullable: true })
  inbox: boolean | null;

  @Column({ name: 'updated_at', type: 'timestamptz', default: () => 'now()' })
  updatedAt: Date;
}
