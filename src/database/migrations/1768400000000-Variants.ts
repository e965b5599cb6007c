import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Variants and the A/B test with a winner (docs/api.md#variants, docs/api.md#a-b-test-with-a-winner;
 * docs/decisions/0034-variants-and-a-b-tests.md). A send's variants are stored with it, their
 * templates resolved (`variants`); each delivery row knows its variant (`deliveries.variant`, the
 * index in `variants`). An A/B test's phase, due decision, winner and decision time are columns, so
 * the decision survives restarts and is made once (`ab_phase = 'sample'` → `'winner'`).
 */
export class Variants1768400000000 implements MigrationInterface {
  name = 'Variants1768400000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "notifications" ADD "variants" jsonb, ADD "ab_phase" character varying(8), ADD "ab_due_at" TIMESTAMP WITH TIME ZONE,
      ADD "ab_winner" character varying(16), ADD "ab_decided_at" TIMESTAMP WITH TIME ZONE`);
    await q.query(`CREATE INDEX "notifications_ab_due_idx" ON "notifications" ("ab_due_at") WHERE ab_phase = 'sample'`);
    await q.query(`ALTER TABLE "deliveries" ADD "variant" smallint`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "deliveries" DROP COLUMN "variant"`);
    await q.query(`DROP INDEX "notifications_ab_due_idx"`);
    await q.query(
      `ALTER TABLE "notifications" DROP COLUMN "variants", DROP COLUMN "ab_phase", DROP COLUMN "ab_due_at", DROP COLUMN "ab_winner", DROP COLUMN "ab_decided_at"`,
    );
  }
}
