import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Every delivery row is inserted once and updated twice (claimed as "sending", then its outcome).
 * With `status` and `updated_at` in an index, each update wrote a new tuple into all three
 * indexes of the table; with no updated column indexed and room left on each page, PostgreSQL
 * makes them heap-only (HOT) updates on the same page instead. The sweeper, which that index
 * served, now finds stuck rows through the notifications that are still unfinished.
 * The fillfactor applies to pages written from now on; existing rows are not rewritten.
 */
export class DeliveriesHotUpdates1764057600000 implements MigrationInterface {
  name = 'DeliveriesHotUpdates1764057600000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX "deliveries_unfinished_idx"`);
    await q.query(`ALTER TABLE "deliveries" SET (fillfactor = 50)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "deliveries" RESET (fillfactor)`);
    await q.query(`CREATE INDEX "deliveries_unfinished_idx" ON "deliveries" ("status", "updated_at") WHERE status IN ('pending', 'sending')`);
  }
}
