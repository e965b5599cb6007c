import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Drops the foreign key from `installation_badges` to `installations`: its check ran once per
 * first count a send wrote, inside the claim, and took a KEY SHARE lock on the wide installation
 * row (writing its tuple, its page and WAL), about 20 us of PostgreSQL CPU each
 * (docs/decisions/0010-no-foreign-key-from-badges-to-installations.md). The counts are written
 * only for installations the same statement read, installations are only soft-deleted (which
 * deletes the count), and the one hard deletion, of a whole app, deletes its counts itself
 * (AppsRepository.delete).
 */
export class InstallationBadgesWithoutKey1766100000000 implements MigrationInterface {
  name = 'InstallationBadgesWithoutKey1766100000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "installation_badges" DROP CONSTRAINT "installation_badges_installation_id_fkey"`);
  }

  async down(q: QueryRunner): Promise<void> {
    // A count whose installation is gone (none is expected) would refuse the key.
    await q.query(`DELETE FROM "installation_badges" b WHERE NOT EXISTS (SELECT 1 FROM "installations" i WHERE i."id" = b."installation_id")`);
    await q.query(`
      ALTER TABLE "installation_badges" ADD CONSTRAINT "installation_badges_installation_id_fkey"
      FOREIGN KEY ("installation_id") REFERENCES "installations"("id") ON DELETE CASCADE`);
  }
}
