import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The inbox (docs/api.md#inbox): one message per user and send, its content copied (a message
 * outlives its notification's retention), unique per (notification, user) so retries and replays
 * store nothing twice. An index per user in page order, and a partial one of the unread.
 */
export class Inbox1766900000000 implements MigrationInterface {
  name = 'Inbox1766900000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE "inbox_messages" (
        "id" uuid NOT NULL DEFAULT gen_random_uuid(),
        "app_id" uuid NOT NULL,
        "user_id" character varying(255) NOT NULL,
        "notification_id" uuid NOT NULL,
        "title" text,
        "body" text,
        "image_url" text,
        "action_url" text,
        "data" jsonb,
        "topic" character varying(64),
        "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        "read_at" TIMESTAMP WITH TIME ZONE,
        "archived_at" TIMESTAMP WITH TIME ZONE,
        "expires_at" TIMESTAMP WITH TIME ZONE NOT NULL,
        CONSTRAINT "inbox_messages_pkey" PRIMARY KEY ("id"),
        CONSTRAINT "inbox_messages_app_id_fkey" FOREIGN KEY ("app_id") REFERENCES "apps"("id") ON DELETE CASCADE
      )`);
    await q.query(`CREATE UNIQUE INDEX "inbox_messages_notification_id_user_id_key" ON "inbox_messages" ("notification_id", "user_id")`);
    await q.query(`CREATE INDEX "inbox_messages_user_idx" ON "inbox_messages" ("app_id", "user_id", "created_at" DESC, "id" DESC)`);
    await q.query(
      `CREATE INDEX "inbox_messages_unread_idx" ON "inbox_messages" ("app_id", "user_id", "created_at" DESC, "id" DESC) INCLUDE ("expires_at")
       WHERE read_at IS NULL AND archived_at IS NULL`,
    );
    await q.query(`CREATE INDEX "inbox_messages_expires_at_idx" ON "inbox_messages" ("expires_at")`);
    await q.query(`ALTER TABLE "notifications" ADD "stat_inbox_stored" integer NOT NULL DEFAULT 0, ADD "stat_inbox_read" integer NOT NULL DEFAULT 0`);
    await q.query(`ALTER TABLE "apps" ADD "inbox_days" smallint NOT NULL DEFAULT 90`);
    await q.query(`ALTER TABLE "apps" ADD CONSTRAINT "apps_inbox_days" CHECK ("inbox_days" BETWEEN 1 AND 365)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "apps" DROP CONSTRAINT "apps_inbox_days"`);
    await q.query(`ALTER TABLE "apps" DROP COLUMN "inbox_days"`);
    await q.query(`ALTER TABLE "notifications" DROP COLUMN "stat_inbox_stored", DROP COLUMN "stat_inbox_read"`);
    await q.query(`DROP TABLE "inbox_messages"`);
  }
}
