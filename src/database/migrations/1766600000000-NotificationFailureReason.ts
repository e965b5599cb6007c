import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Why a send failed as a whole before any delivery (docs/api.md#notification-resource):
 * `AudienceTimedOut`, a filter whose audience ran past AUDIENCE_STATEMENT_TIMEOUT_MS. Null
 * otherwise. A nullable column without a default rewrites no table.
 */
export class NotificationFailureReason1766600000000 implements MigrationInterface {
  name = 'NotificationFailureReason1766600000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "notifications" ADD "failure_reason" text`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "notifications" DROP COLUMN "failure_reason"`);
  }
}
