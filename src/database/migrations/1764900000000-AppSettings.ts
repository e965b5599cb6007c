import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * An app's settings (docs/api.md "App settings"): frequency cap and quiet hours (stored; applied
 * to marketing sends by a later change), identity verification and its secrets, sealed under
 * APP_KEY (the previous one stays valid after a rotation until it is revoked).
 */
export class AppSettings1764900000000 implements MigrationInterface {
  name = 'AppSettings1764900000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE "apps"
        ADD COLUMN "frequency_cap_max" smallint,
        ADD COLUMN "frequency_cap_hours" smallint,
        ADD COLUMN "quiet_hours_start" character(5),
        ADD COLUMN "quiet_hours_end" character(5),
        ADD COLUMN "identity_verification" boolean NOT NULL DEFAULT false,
        ADD COLUMN "identity_secret_enc" text,
        ADD COLUMN "identity_secret_previous_enc" text,
        ADD CONSTRAINT "apps_frequency_cap" CHECK (("frequency_cap_max" IS NULL) = ("frequency_cap_hours" IS NULL)
          AND ("frequency_cap_max" IS NULL OR "frequency_cap_max" BETWEEN 1 AND 100)
          AND ("frequency_cap_hours" IS NULL OR "frequency_cap_hours" BETWEEN 1 AND 720)),
        ADD CONSTRAINT "apps_quiet_hours" CHECK (("quiet_hours_start" IS NULL) = ("quiet_hours_end" IS NULL))`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE "apps"
        DROP CONSTRAINT "apps_quiet_hours",
        DROP CONSTRAINT "apps_frequency_cap",
        DROP COLUMN "identity_secret_previous_enc",
        DROP COLUMN "identity_secret_enc",
        DROP COLUMN "identity_verification",
        DROP COLUMN "quiet_hours_end",
        DROP COLUMN "quiet_hours_start",
        DROP COLUMN "frequency_cap_hours",
        DROP COLUMN "frequency_cap_max"`);
  }
}
