import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The send an `Idempotency-Key` stored (docs/api.md#idempotency): written by the statement that
 * stores the send, before the key's answer is, so a key whose request died between the two is
 * answered with that send rather than taken over by a retry that would send it again. No foreign
 * key: keys live 24 hours, and retention deletes only completed sends older than that.
 */
export class IdempotencyKeyNotification1766300000000 implements MigrationInterface {
  name = 'IdempotencyKeyNotification1766300000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "idempotency_keys" ADD "notification_id" uuid`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "idempotency_keys" DROP COLUMN "notification_id"`);
  }
}
