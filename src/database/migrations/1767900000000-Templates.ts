import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Templates and personalization (docs/api.md#templates-personalization-and-a-b-tests). A template
 * is its versions, one row each, never changed: the latest is the highest `version`. A send from a
 * template copies its texts into the notification and keeps `template` (`{key, version}`) and the
 * send's `variables`, so the worker renders each installation's message from the row alone.
 */
export class Templates1767900000000 implements MigrationInterface {
  name = 'Templates1767900000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE "template_versions" (
      "app_id" uuid NOT NULL,
      "key" character varying(64) NOT NULL,
      "version" integer NOT NULL,
      "name" character varying(100) NOT NULL,
      "notification" jsonb NOT NULL,
      "localizations" json,
      "data" jsonb,
      "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
      CONSTRAINT "template_versions_pkey" PRIMARY KEY ("app_id", "key", "version"),
      CONSTRAINT "template_versions_app_id_fkey" FOREIGN KEY ("app_id") REFERENCES "apps"("id") ON DELETE CASCADE
    )`);
    await q.query(`ALTER TABLE "notifications" ADD "template" jsonb`);
    await q.query(`ALTER TABLE "notifications" ADD "variables" jsonb`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "notifications" DROP COLUMN "variables"`);
    await q.query(`ALTER TABLE "notifications" DROP COLUMN "template"`);
    await q.query(`DROP TABLE "template_versions"`);
  }
}
