import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A throttled send's audience, counted when its fan-out began (docs/api.md#pacing): its fan-out
 * writes deliveries only as their turns come near, and `statistics.installations` shows this count
 * until the fan-out is done. Null for other sends and for those that began before this column.
 */
export class FanoutAudience1766700000000 implements MigrationInterface {
  name = 'FanoutAudience1766700000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "notifications" ADD "fanout_audience" integer`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "notifications" DROP COLUMN "fanout_audience"`);
  }
}
