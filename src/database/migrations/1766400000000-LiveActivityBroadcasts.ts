import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Live Activity channel broadcasts (docs/api.md#live-activity-channels): stored when the API
 * accepts them and sent by the worker, which retries APNs' 429 and 5xx answers as for sends. No
 * foreign key to the channel: a broadcast stays readable after its channel is deleted.
 */
export class LiveActivityBroadcasts1766400000000 implements MigrationInterface {
  name = 'LiveActivityBroadcasts1766400000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE "live_activity_broadcasts" (
        "id" uuid NOT NULL DEFAULT gen_random_uuid(),
        "app_id" uuid NOT NULL,
        "channel_id" character varying(255) NOT NULL,
        "event" character varying(16) NOT NULL,
        "content" jsonb NOT NULL,
        "priority" character varying(8) NOT NULL,
        "accepted_at" TIMESTAMP WITH TIME ZONE NOT NULL,
        "status" character varying(16) NOT NULL DEFAULT 'pending',
        "reason" character varying(255),
        "attempts" integer NOT NULL DEFAULT 0,
        "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        CONSTRAINT "live_activity_broadcasts_pkey" PRIMARY KEY ("id"),
        CONSTRAINT "live_activity_broadcasts_app_id_fkey" FOREIGN KEY ("app_id") REFERENCES "apps"("id") ON DELETE CASCADE
      )`);
    // The sweeper's scan of pending broadcasts whose job may be lost.
    await q.query(`CREATE INDEX "live_activity_broadcasts_pending_idx" ON "live_activity_broadcasts" ("updated_at") WHERE status = 'pending'`);
    // Deleting an app cascades here.
    await q.query(`CREATE INDEX "live_activity_broadcasts_app_id_idx" ON "live_activity_broadcasts" ("app_id")`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "live_activity_broadcasts"`);
  }
}
