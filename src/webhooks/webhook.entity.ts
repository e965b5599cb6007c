import { Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { App } from '../apps/app.entity';

/** A webhook endpoint (docs/api.md#webhooks); `secret_enc` sealed under APP_KEY and bound to this row. */
@Entity('webhooks')
@Index('webhooks_app_id_idx', ['appId'])
export class Webhook {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'webhooks_pkey' })
  id: string;

  @Column({ name: 'app_id', type: 'uuid' })
  appId: string;

  @ManyToOne(() => App, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'app_id', foreignKeyConstraintName: 'webhooks_app_id_fkey' })
  app?: App;

  @Column({ type: 'varchar', length: 2048 })
  url: string;

  @Column({ type: 'text', array: true })
  events: string[];

  @Column({ name: 'secret_enc', type: 'text' })
  secretEnc: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
