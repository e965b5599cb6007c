import { Column, Entity, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';

/** An app's live installations of one platform and permission on one UTC day (migration InstallationDays). */
@Entity('installation_days')
export class InstallationDay {
  @PrimaryColumn({ name: 'app_id', type: 'uuid' })
  appId: string;

  // By entity name, as delivery.entity.ts: delivery imports no feature.
  @ManyToOne('App', { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'app_id', foreignKeyConstraintName: 'installation_days_app_id_fkey' })
  app?: unknown;

  @PrimaryColumn({ type: 'date' })
  day: string;

  @PrimaryColumn({ type: 'varchar', length: 16 })
  platform: string;

  @PrimaryColumn({ type: 'varchar', length: 16 })
  permission: string;

  @Column({ type: 'int' })
  installations: number;
}
