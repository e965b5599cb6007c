import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Message kinds (docs/api.md#message-kinds): a silent send has no title or body; each iOS
 * installation keeps a badge count (docs/api.md#badge-arithmetic); an `opened` event may name the
 * web button that was clicked. Adding a column with a constant default rewrites no table.
 */
export class MessageKinds1765000000000 implements MigrationInterface {
  name = 'MessageKinds1765000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "notifications" ALTER COLUMN "title" DROP NOT NULL, ALTER COLUMN "body" DROP NOT NULL`);
    await q.query(`ALTER TABLE "installations" ADD COLUMN "badge" integer NOT NULL DEFAULT 0`);
    await q.query(`ALTER TABLE "notification_events" ADD COLUMN "action" character varying(64)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "notification_events" DROP COLUMN "action"`);
    await q.query(`ALTER TABLE "installations" DROP COLUMN "badge"`);
    await q.query(`UPDATE "notifications" SET "title" = '', "body" = '' WHERE "title" IS NULL OR "body" IS NULL`);
    await q.query(`ALTER TABLE "notifications" ALTER COLUMN "title" SET NOT NULL, ALTER COLUMN "body" SET NOT NULL`);
  }
}
