import { Column, Entity, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { App } from '../apps/app.entity';

/** One version of an app's template (docs/api.md#templates); never changed once written. */
@Entity('template_versions')
export class TemplateVersion {
  @PrimaryColumn({ name: 'app_id', type: 'uuid', primaryKeyConstraintName: 'template_versions_pkey' })
  appId: string;

  @ManyToOne(() => App, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'app_id', foreignKeyConstraintName: 'template_versions_app_id_fkey' })
  app?: App;

  @PrimaryColumn({ type: 'varchar', length: 64, primaryKeyConstraintName: 'template_versions_pkey' })
  key: string;

  @PrimaryColumn({ type: 'integer', primaryKeyConstraintName: 'template_versions_pkey' })
  version: number;

  @Column({ type: 'varchar', length: 100 })
  name: string;

  /** title, body, image_url, action_url: Liquid texts (docs/api.md#liquid). */
  @Column({ type: 'jsonb' })
  notification: Record<string, unknown>;

  /** json (not jsonb) keeps the keys' order, which the matching rule uses (docs/api.md#localization). */
  @Column({ type: 'json', nullable: true })
  localizations: Record<string, unknown> | null;

  @Column({ type: 'jsonb', nullable: true })
  data: Record<string, unknown> | null;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt: Date;
}
