import { Check, Column, Entity, PrimaryColumn } from 'typeorm';

/** An iOS badge count (docs/api.md#badge-arithmetic), no row meaning 0; no foreign key (docs/decisions/0010-no-foreign-key-from-badges-to-installations.md). */
@Entity('installation_badges')
@Check('installation_badges_badge_check', `"badge" >= 0`)
export class InstallationBadge {
  @PrimaryColumn({ name: 'installation_id', type: 'uuid', primaryKeyConstraintName: 'installation_badges_pkey' })
  installationId: string;

  @Column({ type: 'integer' })
  badge: number;
}
