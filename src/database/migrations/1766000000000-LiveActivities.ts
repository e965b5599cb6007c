import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Live Activities (docs/api.md#live-activities): installations' push-to-start tokens by
 * ActivityAttributes type; running activities with their update token and two counters, the
 * newest update the API accepted (`last_seq`, with its instant) and the newest APNs accepted
 * (`sent_seq`), which together keep an older state from being sent after a newer one; and the
 * updates themselves. Adding a column with a constant default rewrites no table.
 */
export class LiveActivities1766000000000 implements MigrationInterface {
  name = 'LiveActivities1766000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "installations" ADD COLUMN "live_activity_start_tokens" jsonb NOT NULL DEFAULT '{}'`);
    await q.query(`
      CREATE TABLE "live_activities" (
        "id" uuid NOT NULL DEFAULT gen_random_uuid(),
        "app_id" uuid NOT NULL,
        "activity_id" character varying(255) NOT NULL,
        "installation_id" uuid NOT NULL,
        "attributes_type" character varying(128) NOT NULL,
        "push_token" text NOT NULL,
        "status" character varying(16) NOT NULL DEFAULT 'active',
        "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        "ended_at" TIMESTAMP WITH TIME ZONE,
        "invalid_reason" character varying(255),
        "last_seq" bigint NOT NULL DEFAULT 0,
        "last_accepted_at" TIMESTAMP WITH TIME ZONE,
        "sent_seq" bigint NOT NULL DEFAULT 0,
        CONSTRAINT "live_activities_pkey" PRIMARY KEY ("id"),
        CONSTRAINT "live_activities_app_id_fkey" FOREIGN KEY ("app_id") REFERENCES "apps"("id") ON DELETE CASCADE,
        CONSTRAINT "live_activities_installation_id_fkey" FOREIGN KEY ("installation_id") REFERENCES "installations"("id") ON DELETE CASCADE
      )`);
    await q.query(`CREATE UNIQUE INDEX "live_activities_app_id_activity_id_key" ON "live_activities" ("app_id", "activity_id")`);
    // Deleting an installation cascades to its activities.
    await q.query(`CREATE INDEX "live_activities_installation_id_idx" ON "live_activities" ("installation_id")`);
    await q.query(`
      CREATE TABLE "live_activity_updates" (
        "id" uuid NOT NULL DEFAULT gen_random_uuid(),
        "live_activity_id" uuid NOT NULL,
        "seq" bigint NOT NULL,
        "event" character varying(16) NOT NULL,
        "content" jsonb NOT NULL,
        "priority" character varying(8) NOT NULL,
        "accepted_at" TIMESTAMP WITH TIME ZONE NOT NULL,
        "status" character varying(16) NOT NULL DEFAULT 'pending',
        "reason" character varying(255),
        "attempts" integer NOT NULL DEFAULT 0,
        "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        CONSTRAINT "live_activity_updates_pkey" PRIMARY KEY ("id"),
        CONSTRAINT "live_activity_updates_live_activity_id_fkey" FOREIGN KEY ("live_activity_id") REFERENCES "live_activities"("id") ON DELETE CASCADE
      )`);
    await q.query(`CREATE UNIQUE INDEX "live_activity_updates_live_activity_id_seq_key" ON "live_activity_updates" ("live_activity_id", "seq")`);
    // iOS 18 broadcast channels the app created at APNs, by APNs' channel id.
    await q.query(`
      CREATE TABLE "live_activity_channels" (
        "app_id" uuid NOT NULL,
        "id" character varying(255) NOT NULL,
        "storage" character varying(16) NOT NULL,
        "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        CONSTRAINT "live_activity_channels_pkey" PRIMARY KEY ("app_id", "id"),
        CONSTRAINT "live_activity_channels_app_id_fkey" FOREIGN KEY ("app_id") REFERENCES "apps"("id") ON DELETE CASCADE
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "live_activity_channels"`);
    await q.query(`DROP TABLE "live_activity_updates"`);
    await q.query(`DROP TABLE "live_activities"`);
    await q.query(`ALTER TABLE "installations" DROP COLUMN "live_activity_start_tokens"`);
  }
}
