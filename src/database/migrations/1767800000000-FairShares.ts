import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Fair shares between apps (docs/api.md#fair-sharing, docs/decisions/0031-fair-shares-by-windows.md):
 * a row per delivery batch of a fanned-out send that goes through its app's window, per lane.
 * `queued_at` set: the batch's job is queued (the window, at most FAIR_WINDOW rows per app and
 * lane); null: held until a batch of the same app and lane finishes. Rows go when their batch's
 * job finishes, so the table holds only what is queued or held.
 */
export class FairShares1767800000000 implements MigrationInterface {
  name = 'FairShares1767800000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE "fair_share_batches" (
        "id" bigserial PRIMARY KEY,
        "app_id" uuid NOT NULL REFERENCES "apps"("id") ON DELETE CASCADE,
        "lane" text NOT NULL CHECK ("lane" IN ('transactional', 'marketing')),
        "notification_id" uuid NOT NULL REFERENCES "notifications"("id") ON DELETE CASCADE,
        "batch" integer NOT NULL,
        "queued_at" timestamptz,
        "created_at" timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT "fair_share_batches_batch_key" UNIQUE ("notification_id", "batch")
      )`);
    await q.query(`CREATE INDEX "fair_share_batches_held_idx" ON "fair_share_batches" ("app_id", "lane", "id") WHERE "queued_at" IS NULL`);
    await q.query(`CREATE INDEX "fair_share_batches_queued_idx" ON "fair_share_batches" ("app_id", "lane") WHERE "queued_at" IS NOT NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "fair_share_batches"`);
  }
}
