import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Drops the foreign key from `deliveries.installation_id` to `installations`. The fan-out inserts
 * a row per installation, and the key made PostgreSQL run a referential check per row that takes
 * a KEY SHARE lock on the installation (writing its heap page and WAL): 7 us of PostgreSQL CPU
 * per delivery, a sixth of PostgreSQL's share of a send (bench/README.md, "Going after our own
 * CPU"). It guarded nothing the schema does not already guarantee: the fan-out takes the ids
 * from `installations` in the same statement, installations are only soft-deleted, and the one
 * hard deletion, of a whole app, removes its deliveries through its notifications
 * (`deliveries_notification_id_fkey`, kept: it is what deletes a notification's rows).
 */
export class DeliveriesWithoutInstallationKey1764800000000 implements MigrationInterface {
  name = 'DeliveriesWithoutInstallationKey1764800000000';

  async up(q: QueryRunner): Promise<void> {
    // On the partitioned table: every partition's copy goes with it.
    await q.query(`ALTER TABLE "deliveries" DROP CONSTRAINT "deliveries_installation_id_fkey"`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE "deliveries" ADD CONSTRAINT "deliveries_installation_id_fkey"
      FOREIGN KEY ("installation_id") REFERENCES "installations"("id") ON DELETE CASCADE`);
  }
}
