import { Check, Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * An iOS installation's badge count (docs/api.md#badge-arithmetic): set by `badge`, moved by
 * sends' `badge_increment`. A narrow table with half of each page free, so the count a send
 * writes per delivery is a heap-only update (migration InstallationBadges); no row means 0.
 * No foreign key to `installations` (migration InstallationBadgesWithoutKey): a deleted
 * installation's count is deleted by the statement that deletes it (InstallationsRepository.softDelete,
 * AppsRepository.delete).
 */
@Entity('installation_badges')
@Check('installation_badges_badge_check', `"badge" >= 0`)
export class InstallationBadge {
  @PrimaryColumn({ name: 'installation_id', type: 'uuid', primaryKeyConstraintName: 'installation_badges_pkey' })
  installationId: string;

  @Column({ type: 'integer' })
  badge: number;
}
