import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The delivery trace (docs/api.md#delivery-trace) shows each delivery's user as it was when the fan-out
 * considered the installation: the installation's own `user_id` may change since, and is cleared
 * when it is deleted. Written once by the fan-out INSERT and never updated, so it costs the row's
 * bytes and no index, and outcome updates stay heap-only.
 *
 * Nullable without a default: adding it is a catalog change, no table rewrite, whatever the size
 * of `deliveries`. Rows written before it stay null ("not known"): they are not backfilled from
 * the installations' current users, which would both rewrite every row and be wrong for the
 * installations whose user changed.
 */
export class DeliveryUserAtFanOut1764400000000 implements MigrationInterface {
  name = 'DeliveryUserAtFanOut1764400000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "deliveries" ADD "user_id" character varying(255)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "deliveries" DROP COLUMN "user_id"`);
  }
}
