import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Audiences (docs/api.md#audience-filters): installation properties, with a GIN index
 * (jsonb_path_ops: containment only, smaller and cheaper to write than jsonb_ops) for a property's
 * equality; `app_version_key()`, the sort key of a dotted version (1.10 > 1.9, trailing `.0`s
 * ignored) the filters compare, and an index on it per app: computing it costs microseconds a row
 * (seconds for a range over a million rows, bench/scenarios/audiences.ts); the filter a send stored. Adding
 * the column with a constant default rewrites no table; building the indexes reads it
 * (docs/operations.md "Upgrades and migrations").
 */
export class Audiences1765500000000 implements MigrationInterface {
  name = 'Audiences1765500000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "installations" ADD COLUMN "properties" jsonb NOT NULL DEFAULT '{}'`);
    await q.query(`CREATE INDEX "installations_properties_idx" ON "installations" USING gin ("properties" jsonb_path_ops)`);
    await q.query(`ALTER TABLE "notifications" ADD COLUMN "recipient_filter" jsonb`);
    await q.query(
      `CREATE FUNCTION app_version_key(version text) RETURNS integer[] LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
         SELECT string_to_array(regexp_replace(substring(version FROM '^[0-9]{1,9}(?:\\.[0-9]{1,9})*'), '(\\.0+)+$', ''), '.')::integer[] $$`,
    );
    await q.query(`CREATE INDEX "installations_app_version_idx" ON "installations" ("app_id", app_version_key("device" ->> 'app_version'))`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX "installations_app_version_idx"`);
    await q.query(`DROP FUNCTION app_version_key(text)`);
    await q.query(`ALTER TABLE "notifications" DROP COLUMN "recipient_filter"`);
    await q.query(`DROP INDEX "installations_properties_idx"`);
    await q.query(`ALTER TABLE "installations" DROP COLUMN "properties"`);
  }
}
