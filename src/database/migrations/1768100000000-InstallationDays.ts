import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Each app's live installations per UTC day, by platform and permission (docs/api.md#analytics):
 * the worker's hourly maintenance writes today's counts again (delivery/installation-days/), so a
 * past day keeps its last count. History of `permission` is kept nowhere else.
 */
export class InstallationDays1768100000000 implements MigrationInterface {
  name = 'InstallationDays1768100000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE "installation_days" (
      "app_id" uuid NOT NULL,
      "day" date NOT NULL,
      "platform" varchar(16) NOT NULL,
      "permission" varchar(16) NOT NULL,
      "installations" integer NOT NULL,
      CONSTRAINT "installation_days_pkey" PRIMARY KEY ("app_id", "day", "platform", "permission"),
      CONSTRAINT "installation_days_app_id_fkey" FOREIGN KEY ("app_id") REFERENCES "apps"("id") ON DELETE CASCADE
    )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "installation_days"`);
  }
}
