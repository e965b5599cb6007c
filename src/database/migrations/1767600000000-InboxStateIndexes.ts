import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * An index per user and state (issue 52: a list answers in O(page) however many messages a user
 * has). Migration Inbox indexed the user's messages and their unread ones; a list of the read, the
 * archived or the default (not archived) then walked the user's whole index past every message of
 * another state. Each is partial on its state's predicate (STATE_SQL in inbox.repository.ts), in
 * page order; a stored message, unread, enters only the default's besides those of Inbox.
 */
export class InboxStateIndexes1767600000000 implements MigrationInterface {
  name = 'InboxStateIndexes1767600000000';

  async up(q: QueryRunner): Promise<void> {
    const columns = `("app_id", "user_id", "created_at" DESC, "id" DESC) INCLUDE ("expires_at")`;
    await q.query(`CREATE INDEX "inbox_messages_inbox_idx" ON "inbox_messages" ${columns} WHERE archived_at IS NULL`);
    await q.query(`CREATE INDEX "inbox_messages_read_idx" ON "inbox_messages" ${columns} WHERE read_at IS NOT NULL AND archived_at IS NULL`);
    await q.query(`CREATE INDEX "inbox_messages_archived_idx" ON "inbox_messages" ${columns} WHERE archived_at IS NOT NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX "inbox_messages_archived_idx"`);
    await q.query(`DROP INDEX "inbox_messages_read_idx"`);
    await q.query(`DROP INDEX "inbox_messages_inbox_idx"`);
  }
}
