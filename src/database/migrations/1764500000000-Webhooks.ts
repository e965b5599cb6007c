import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Webhooks (docs/api.md#webhooks): each app's endpoints with their signing secret sealed under APP_KEY,
 * and the outbox of messages to them. A message row is written by the very statement that
 * completes, cancels or invalidates (so a crash cannot lose it), then called from the worker
 * until it is delivered or its attempts run out.
 */
export class Webhooks1764500000000 implements MigrationInterface {
  name = 'Webhooks1764500000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE "webhooks" (
        "id" uuid NOT NULL DEFAULT gen_random_uuid(),
        "app_id" uuid NOT NULL,
        "url" character varying(2048) NOT NULL,
        "events" text array NOT NULL,
        "secret_enc" text NOT NULL,
        "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        CONSTRAINT "webhooks_pkey" PRIMARY KEY ("id"),
        CONSTRAINT "webhooks_app_id_fkey" FOREIGN KEY ("app_id") REFERENCES "apps"("id") ON DELETE CASCADE
      )`);
    // The outbox statements find an app's endpoints for each completion or invalidation.
    await q.query(`CREATE INDEX "webhooks_app_id_idx" ON "webhooks" ("app_id")`);
    await q.query(`
      CREATE TABLE "webhook_messages" (
        "id" uuid NOT NULL DEFAULT gen_random_uuid(),
        "webhook_id" uuid NOT NULL,
        "type" character varying(64) NOT NULL,
        "subject_id" uuid NOT NULL,
        "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        "body" text,
        "status" character varying(16) NOT NULL DEFAULT 'pending',
        "attempts" integer NOT NULL DEFAULT 0,
        "due_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        "last_error" character varying(255),
        "finished_at" TIMESTAMP WITH TIME ZONE,
        CONSTRAINT "webhook_messages_pkey" PRIMARY KEY ("id"),
        CONSTRAINT "webhook_messages_webhook_id_fkey" FOREIGN KEY ("webhook_id") REFERENCES "webhooks"("id") ON DELETE CASCADE
      )`);
    // The dispatcher's look-up: only messages still owed are indexed, so it stays small.
    await q.query(`CREATE INDEX "webhook_messages_due_idx" ON "webhook_messages" ("due_at") WHERE status = 'pending'`);
    // Deleting a webhook (or its app) cascades to its messages.
    await q.query(`CREATE INDEX "webhook_messages_webhook_id_idx" ON "webhook_messages" ("webhook_id")`);
    // Retention deletes finished messages by age.
    await q.query(`CREATE INDEX "webhook_messages_finished_idx" ON "webhook_messages" ("finished_at") WHERE status <> 'pending'`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "webhook_messages"`);
    await q.query(`DROP TABLE "webhooks"`);
  }
}
