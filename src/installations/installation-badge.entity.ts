import { Check, Column, Entity, JoinColumn, OneToOne, PrimaryColumn } from 'typeorm';
import { Installation } from './installation.entity';

/**
 * An iOS installation's badge count (docs/api.md#badge-arithmetic): set by `badge`, moved by
 * sends' `badge_increment`. A narrow table with half of each page free, so the count a send
 * writes per delivery is a heap-only update (migration InstallationBadges); no row means 0.
 */
@Entity('installation_badges')
@Check('installation_badges_badge_check', `"badge" >= 0`)
export class InstallationBadge {
  @PrimaryColumn({ name: 'installation_id', type: 'uuid', primaryKeyConstraintName: 'installation_badges_pkey' })
  installationId: string;

  @OneToOne(() => Installation, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'installation_id', foreignKeyConstraintName: 'installation_badges_installation_id_fkey' })
  installation?: Installation;

  @Column({ type: 'integer' })
  badge: number;
}
