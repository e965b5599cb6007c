import { MigrationInterface, QueryRunner } from 'typeorm';

/** Apps, API tokens, installations, notifications and idempotency keys. */
export class InitialSchema1763884800000 implements MigrationInterface {
  name = 'InitialSchema1763884800000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE "apps" (
        "id" uuid NOT NULL DEFAULT gen_random_uuid(),
        "name" character varying(255) NOT NULL,
        "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        CONSTRAINT "apps_pkey" PRIMARY KEY ("id")
      )`);
    await q.query(`
      CREATE TABLE "api_tokens" (
        "id" uuid NOT NULL DEFAULT gen_random_uuid(),
        "app_id" uuid NOT NULL,
        "name" character varying(255),
        "token_hash" character(64) NOT NULL,
        "abilities" text array NOT NULL,
        "expires_at" TIMESTAMP WITH TIME ZONE,
        "revoked_at" TIMESTAMP WITH TIME ZONE,
        "last_used_at" TIMESTAMP WITH TIME ZONE,
        "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        CONSTRAINT "api_tokens_pkey" PRIMARY KEY ("id"),
        CONSTRAINT "api_tokens_app_id_fkey" FOREIGN KEY ("app_id") REFERENCES "apps"("id") ON DELETE CASCADE
      )`);
    await q.query(`CREATE UNIQUE INDEX "api_tokens_token_hash_key" ON "api_tokens" ("token_hash")`);
    await q.query(`CREATE INDEX "api_tokens_app_id_idx" ON "api_tokens" ("app_id")`);
    await q.query(`
      CREATE TABLE "installations" (
        "id" uuid NOT NULL DEFAULT gen_random_uuid(),
        "app_id" uuid NOT NULL,
        "installation_id" character varying(255) NOT NULL,
        "platform" character varying(16) NOT NULL,
        "push_token" text,
        "web_push_subscription" jsonb,
        "device" jsonb NOT NULL DEFAULT '{}'::jsonb,
        "user_id" character varying(255),
        "permission" character varying(16) NOT NULL DEFAULT 'unknown',
        "registered_at" TIMESTAMP WITH TIME ZONE NOT NULL,
        "last_seen_at" TIMESTAMP WITH TIME ZONE NOT NULL,
        "identifier_updated_at" TIMESTAMP WITH TIME ZONE,
        "permission_updated_at" TIMESTAMP WITH TIME ZONE,
        "invalidated_at" TIMESTAMP WITH TIME ZONE,
        "invalid_reason" character varying(255),
        "deleted_at" TIMESTAMP WITH TIME ZONE,
        CONSTRAINT "installations_pkey" PRIMARY KEY ("id"),
        CONSTRAINT "installations_app_id_fkey" FOREIGN KEY ("app_id") REFERENCES "apps"("id") ON DELETE CASCADE
      )`);
    await q.query(`CREATE UNIQUE INDEX "installations_app_id_installation_id_key" ON "installations" ("app_id", "installation_id")`);
    await q.query(`CREATE INDEX "installations_app_id_user_id_idx" ON "installations" ("app_id", "user_id")`);
    await q.query(`
      CREATE TABLE "notifications" (
        "id" uuid NOT NULL DEFAULT gen_random_uuid(),
        "app_id" uuid NOT NULL,
        "title" text NOT NULL,
        "body" text NOT NULL,
        "image_url" text,
        "action_url" text,
        "data" jsonb,
        "options" jsonb,
        "user_ids" text array NOT NULL,
        "target_users" integer NOT NULL,
        "stat_users" integer NOT NULL DEFAULT 0,
        "stat_installations" integer NOT NULL DEFAULT 0,
        "stat_accepted" integer NOT NULL DEFAULT 0,
        "stat_received" integer NOT NULL DEFAULT 0,
        "stat_displayed" integer NOT NULL DEFAULT 0,
        "stat_opened" integer NOT NULL DEFAULT 0,
        "stat_failed" integer NOT NULL DEFAULT 0,
        "stat_skipped" integer NOT NULL DEFAULT 0,
        "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        "processing_started_at" TIMESTAMP WITH TIME ZONE,
        "completed_at" TIMESTAMP WITH TIME ZONE,
        CONSTRAINT "notifications_pkey" PRIMARY KEY ("id"),
        CONSTRAINT "notifications_app_id_fkey" FOREIGN KEY ("app_id") REFERENCES "apps"("id") ON DELETE CASCADE
      )`);
    await q.query(`CREATE INDEX "notifications_app_id_created_at_idx" ON "notifications" ("app_id", "created_at", "id")`);
    await q.query(`
      CREATE TABLE "idempotency_keys" (
        "app_id" uuid NOT NULL,
        "key" character varying(255) NOT NULL,
        "request_hash" character(64) NOT NULL,
        "status" character varying(16) NOT NULL,
        "response_status" integer,
        "response_body" jsonb,
        "locked_until" TIMESTAMP WITH TIME ZONE NOT NULL,
        "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        "expires_at" TIMESTAMP WITH TIME ZONE NOT NULL,
        CONSTRAINT "idempotency_keys_pkey" PRIMARY KEY ("app_id", "key"),
        CONSTRAINT "idempotency_keys_app_id_fkey" FOREIGN KEY ("app_id") REFERENCES "apps"("id") ON DELETE CASCADE
      )`);
    await q.query(`CREATE INDEX "idempotency_keys_expires_at_idx" ON "idempotency_keys" ("expires_at")`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "idempotency_keys"`);
    await q.query(`DROP TABLE "notifications"`);
    await q.query(`DROP TABLE "installations"`);
    await q.query(`DROP TABLE "api_tokens"`);
    await q.query(`DROP TABLE "apps"`);
  }
}
