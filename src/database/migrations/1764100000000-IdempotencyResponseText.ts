import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A replayed send answers with the very bytes of the first answer (docs/api.md#idempotency). jsonb keeps
 * neither key order nor spacing, so the stored answer becomes text, written as it was sent.
 * Answers stored before this migration are converted with their jsonb formatting: the same JSON
 * values, possibly in another key order, for the 24 hours they still live.
 */
export class IdempotencyResponseText1764100000000 implements MigrationInterface {
  name = 'IdempotencyResponseText1764100000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "idempotency_keys" ALTER COLUMN "response_body" TYPE text USING "response_body"::text`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "idempotency_keys" ALTER COLUMN "response_body" TYPE jsonb USING "response_body"::jsonb`);
  }
}
