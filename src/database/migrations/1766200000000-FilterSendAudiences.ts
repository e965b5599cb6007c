import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A filter send's audience, evaluated once (docs/api.md#audience-filters): `fanout_audiences`
 * holds the installations its filter selected when its fan-out began, one row per chunk of the
 * fan-out (their ids in an array: a row per installation cost 9 us each to write), and each chunk
 * of the fan-out takes its row, as a list send's take their ids;
 * `notifications.fanout_audience_chunks` says how many rows, null until then. No foreign key: each
 * chunk deletes its row as it writes its deliveries, a notification is deleted by retention only
 * once completed, and an app's deletion deletes its sends' rows itself (AppsRepository.delete).
 * And an index on the language the filters compare (audience-sql.ts LANGUAGE_SQL), so that a
 * filter naming a language reads that language's installations, not the app's. Building it reads `installations` once and blocks writes to it
 * meanwhile (docs/operations.md "Upgrades and migrations").
 */
export class FilterSendAudiences1766200000000 implements MigrationInterface {
  name = 'FilterSendAudiences1766200000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE "fanout_audiences" (
        "notification_id" uuid NOT NULL,
        "chunk" integer NOT NULL,
        "installation_ids" uuid[] NOT NULL,
        CONSTRAINT "fanout_audiences_pkey" PRIMARY KEY ("notification_id", "chunk"))`);
    await q.query(`ALTER TABLE "notifications" ADD "fanout_audience_chunks" integer`);
    await q.query(`CREATE INDEX "installations_language_idx" ON "installations" ("app_id", lower(substring("device" ->> 'locale' FROM '^[A-Za-z]+')))`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX "installations_language_idx"`);
    await q.query(`ALTER TABLE "notifications" DROP COLUMN "fanout_audience_chunks"`);
    await q.query(`DROP TABLE "fanout_audiences"`);
  }
}
