import { Check, Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';

/** A tenant; apps.repository.ts reads and writes the settings columns, kept here for the schema test. */
@Entity('apps')
@Check(
  'apps_frequency_cap',
  `("frequency_cap_max" IS NULL) = ("frequency_cap_hours" IS NULL)
    AND ("frequency_cap_max" IS NULL OR "frequency_cap_max" BETWEEN 1 AND 100)
    AND ("frequency_cap_hours" IS NULL OR "frequency_cap_hours" BETWEEN 1 AND 720)`,
)
@Check('apps_inbox_days', `"inbox_days" BETWEEN 1 AND 365`)
@Check('apps_quiet_hours', `("quiet_hours_start" IS NULL) = ("quiet_hours_end" IS NULL)`)
export class App {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ type: 'varchar', length: 255 })
  name: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @Column({ name: 'frequency_cap_max', type: 'smallint', nullable: true })
  frequencyCapMax: number | null;

  @Column({ name: 'frequency_cap_hours', type: 'smallint', nullable: true })
  frequencyCapHours: number | null;

  @Column({ name: 'quiet_hours_start', type: 'character', length: 5, nullable: true })
  quietHoursStart: string | null;

  @Column({ name: 'quiet_hours_end', type: 'character', length: 5, nullable: true })
  quietHoursEnd: string | null;

  @Column({ name: 'identity_verification', type: 'boolean', default: false })
  identityVerification: boolean;

  @Column({ name: 'identity_secret_enc', type: 'text', nullable: true })
  identitySecretEnc: string | null;

  @Column({ name: 'identity_secret_previous_enc', type: 'text', nullable: true })
  identitySecretPreviousEnc: string | null;

  /** Days an inbox message is kept (docs/api.md#inbox). */
  @Column({ name: 'inbox_days', type: 'smallint', default: 90 })
  inboxDays: number;
}
