import { MigrationInterface, QueryRunner } from 'typeorm';

/** Provider credentials, per-installation deliveries, client events and fan-out progress. */
export class Delivery1763971200000 implements MigrationInterface {
  name = 'Delivery1763971200000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE "app_credentials" (
        "app_id" uuid NOT NULL,
        "apns_key_id" character varying(64),
        "apns_team_id" character varying(64),
        "apns_topic" character varying(255),
        "apns_production" boolean,
        "apns_private_key_enc" text,
        "fcm_project_id" character varying(255),
        "fcm_client_email" character varying(255),
        "fcm_service_account_enc" text,
        "vapid_subject" character varying(255),
        "vapid_public_key" character varying(255),
        "vapid_private_key_enc" text,
        "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        CONSTRAINT "app_credentials_pkey" PRIMARY KEY ("app_id"),
        CONSTRAINT "app_credentials_app_id_fkey" FOREIGN KEY ("app_id") REFERENCES "apps"("id") ON DELETE CASCADE
      )`);
    await q.query(`
      CREATE TABLE "deliveries" (
        "notification_id" uuid NOT NULL,
        "installation_id" uuid NOT NULL,
        "platform" character varying(16) NOT NULL,
        "batch" integer NOT NULL,
        "status" character varying(16) NOT NULL,
        "reason" character varying(255),
        "attempts" integer NOT NULL DEFAULT 0,
        "next_attempt_at" TIMESTAMP WITH TIME ZONE,
        "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        CONSTRAINT "deliveries_pkey" PRIMARY KEY ("notification_id", "installation_id"),
        CONSTRAINT "deliveries_notification_id_fkey" FOREIGN KEY ("notification_id") REFERENCES "notifications"("id") ON DELETE CASCADE,
        CONSTRAINT "deliveries_installation_id_fkey" FOREIGN KEY ("installation_id") REFERENCES "installations"("id") ON DELETE CASCADE
      )`);
    await q.query(`CREATE INDEX "deliveries_notification_id_batch_idx" ON "deliveries" ("notification_id", "batch")`);
    await q.query(`CREATE INDEX "deliveries_unfinished_idx" ON "deliveries" ("status", "updated_at") WHERE status IN ('pending', 'sending')`);
    await q.query(`
      CREATE TABLE "notification_events" (
        "notification_id" uuid NOT NULL,
        "installation_id" uuid NOT NULL,
        "type" character varying(16) NOT NULL,
        "occurred_at" TIMESTAMP WITH TIME ZONE NOT NULL,
        "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        CONSTRAINT "notification_events_pkey" PRIMARY KEY ("notification_id", "installation_id", "type"),
        CONSTRAINT "notification_events_notification_id_fkey" FOREIGN KEY ("notification_id") REFERENCES "notifications"("id") ON DELETE CASCADE,
        CONSTRAINT "notification_events_installation_id_fkey" FOREIGN KEY ("installation_id") REFERENCES "installations"("id") ON DELETE CASCADE
      )`);
    await q.query(`ALTER TABLE "notifications" ADD "fanout_position" integer NOT NULL DEFAULT 0`);
    await q.query(`ALTER TABLE "notifications" ADD "fanout_batches" integer NOT NULL DEFAULT 0`);
    await q.query(`ALTER TABLE "notifications" ADD "fanned_out_at" TIMESTAMP WITH TIME ZONE`);
    await q.query(`CREATE INDEX "notifications_unfinished_idx" ON "notifications" ("created_at") WHERE completed_at IS NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX "notifications_unfinished_idx"`);
    await q.query(`ALTER TABLE "notifications" DROP COLUMN "fanned_out_at"`);
    await q.query(`ALTER TABLE "notifications" DROP COLUMN "fanout_batches"`);
    await q.query(`ALTER TABLE "notifications" DROP COLUMN "fanout_position"`);
    await q.query(`DROP TABLE "notification_events"`);
    await q.query(`DROP TABLE "deliveries"`);
    await q.query(`DROP TABLE "app_credentials"`);
  }
}
