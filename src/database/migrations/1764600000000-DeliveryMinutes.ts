import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Per-minute delivery counters for the operator dashboard (docs/operations.md "Operator
 * dashboard"): how many outcomes of each kind a notification had in each minute. The statement
 * that records outcomes adds to them (one row per notification, minute and outcome per write), so
 * the dashboard's time series never read `deliveries`, which has no index on time by design (its
 * updates must stay heap-only). The rows go with their notification (ON DELETE CASCADE), so
 * retention and app deletion prune them; the minute index serves the "last hour" overview.
 */
export class DeliveryMinutes1764600000000 implements MigrationInterface {
  name = 'DeliveryMinutes1764600000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE TABLE "delivery_minutes" (
        "notification_id" uuid NOT NULL,
        "minute" timestamptz NOT NULL,
        "outcome" varchar(16) NOT NULL,
        "count" integer NOT NULL,
        CONSTRAINT "delivery_minutes_pkey" PRIMARY KEY ("notification_id", "minute", "outcome"),
        CONSTRAINT "delivery_minutes_notification_id_fkey" FOREIGN KEY ("notification_id") REFERENCES "notifications"("id") ON DELETE CASCADE
      )`,
    );
    await q.query(`CREATE INDEX "delivery_minutes_minute_idx" ON "delivery_minutes" ("minute")`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "delivery_minutes"`);
  }
}
