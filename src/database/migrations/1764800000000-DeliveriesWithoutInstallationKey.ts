import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Drops the foreign key from `deliveries.installation_id` to `installations`: its per-row check
 * locked every installation the fan-out read, and it guarded nothing the schema does not already
 * guarantee (docs/decisions/0004-no-foreign-key-from-deliveries-to-installations.md). The key from
 * deliveries to notifications stays: it is what deletes a notification's rows.
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
