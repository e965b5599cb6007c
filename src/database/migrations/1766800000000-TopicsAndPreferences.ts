import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Topics and per-user preferences (docs/api.md#topics-and-preferences). A user's choice is a row
 * only once made: no row is the topic's default, and a channel's null its default (on).
 * `topic_subscriptions`' key leads with the topic, so `recipients.topic` reads a topic's
 * subscribers from it; its second index serves one user's preferences.
 */
export class TopicsAndPreferences1766800000000 implements MigrationInterface {
  name = 'TopicsAndPreferences1766800000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE "topics" (
      "app_id" uuid NOT NULL,
      "key" character varying(64) NOT NULL,
      "name" character varying(100) NOT NULL,
      "description" character varying(500),
      "default_subscribed" boolean NOT NULL,
      "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
      "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
      CONSTRAINT "topics_pkey" PRIMARY KEY ("app_id", "key"),
      CONSTRAINT "topics_app_id_fkey" FOREIGN KEY ("app_id") REFERENCES "apps"("id") ON DELETE CASCADE
    )`);
    await q.query(`CREATE TABLE "topic_subscriptions" (
      "app_id" uuid NOT NULL,
      "topic_key" character varying(64) NOT NULL,
      "user_id" character varying(255) NOT NULL,
      "subscribed" boolean NOT NULL,
      "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
      CONSTRAINT "topic_subscriptions_pkey" PRIMARY KEY ("app_id", "topic_key", "user_id"),
      CONSTRAINT "topic_subscriptions_app_id_fkey" FOREIGN KEY ("app_id") REFERENCES "apps"("id") ON DELETE CASCADE
    )`);
    await q.query(`CREATE INDEX "topic_subscriptions_user_idx" ON "topic_subscriptions" ("app_id", "user_id")`);
    await q.query(`CREATE TABLE "user_channel_preferences" (
      "app_id" uuid NOT NULL,
      "user_id" character varying(255) NOT NULL,
      "push" boolean,
      "inbox" boolean,
      "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
      CONSTRAINT "user_channel_preferences_pkey" PRIMARY KEY ("app_id", "user_id"),
      CONSTRAINT "user_channel_preferences_app_id_fkey" FOREIGN KEY ("app_id") REFERENCES "apps"("id") ON DELETE CASCADE
    )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "user_channel_preferences"`);
    await q.query(`DROP TABLE "topic_subscriptions"`);
    await q.query(`DROP TABLE "topics"`);
  }
}
