import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Pacing (docs/api.md#pacing): the accepted marketing messages per installation that the frequency
 * cap counts, keyed so that one installation's count within the window is one index-only range
 * scan (marketing-receipt.entity.ts). A new, empty table: no rewrite of an existing one.
 */
export class Pacing1765750000000 implements MigrationInterface {
  name = 'Pacing1765750000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE "marketing_receipts" (
        "installation_id" uuid NOT NULL,
        "accepted_at" TIMESTAMP WITH TIME ZONE NOT NULL,
        "notification_id" uuid NOT NULL,
        CONSTRAINT "marketing_receipts_pkey" PRIMARY KEY ("installation_id", "accepted_at", "notification_id")
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "marketing_receipts"`);
  }
}
