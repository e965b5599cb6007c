import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Fair shares of the fan-outs (docs/api.md#fair-sharing, docs/decisions/0037-fan-out-windows.md):
 * a row per send due now whose fan-out goes through its app's window. `queued_at` set: its fan-out
 * job is queued or running (at most FANOUT_WINDOW rows per app); null: held until one of the app's
 * fan-outs ends. Rows go when their fan-out ends, so the table holds only what is queued or held.
 */
export class FanoutShares1768500000000 implements MigrationInterface {
  name = 'FanoutShares1768500000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE "fair_share_fanouts" (
        "id" bigserial PRIMARY KEY,
        "app_id" uuid NOT NULL REFERENCES "apps"("id") ON DELETE CASCADE,
        "notification_id" uuid NOT NULL UNIQUE REFERENCES "notifications"("id") ON DELETE CASCADE,
        "queued_at" timestamptz,
        "created_at" timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX "fair_share_fanouts_held_idx" ON "fair_share_fanouts" ("app_id", "id") WHERE "queued_at" IS NULL`);
    await q.query(`CREATE INDEX "fair_share_fanouts_queued_idx" ON "fair_share_fanouts" ("app_id") WHERE "queued_at" IS NOT NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "fair_share_fanouts"`);
  }
}
