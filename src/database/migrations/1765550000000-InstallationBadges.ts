import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Badge counts (docs/api.md#badge-arithmetic) move out of `installations` into a narrow table
 * with half of each page free. A send's `badge` or `badge_increment` writes one count per iOS
 * delivery: on the wide installations row that was a new version of the whole row plus an entry
 * in each of its six indexes (two GIN), here it is a 40-byte heap-only update
 * (bench/HISTORY.md, "Message kinds"). No row means 0: rows appear when a count is first set.
 */
export class InstallationBadges1765550000000 implements MigrationInterface {
  name = 'InstallationBadges1765550000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE "installation_badges" (
      "installation_id" uuid NOT NULL,
      "badge" integer NOT NULL,
      CONSTRAINT "installation_badges_pkey" PRIMARY KEY ("installation_id"),
      CONSTRAINT "installation_badges_installation_id_fkey" FOREIGN KEY ("installation_id") REFERENCES "installations"("id") ON DELETE CASCADE,
      CONSTRAINT "installation_badges_badge_check" CHECK ("badge" >= 0)
    ) WITH (fillfactor = 50)`);
    await q.query(`INSERT INTO "installation_badges" ("installation_id", "badge")
      SELECT "id", "badge" FROM "installations" WHERE "badge" <> 0 AND "deleted_at" IS NULL`);
    await q.query(`ALTER TABLE "installations" DROP COLUMN "badge"`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "installations" ADD COLUMN "badge" integer NOT NULL DEFAULT 0`);
    await q.query(`UPDATE "installations" i SET "badge" = b."badge" FROM "installation_badges" b WHERE b."installation_id" = i."id"`);
    await q.query(`DROP TABLE "installation_badges"`);
  }
}
