import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What Redis held besides the queues, for QUEUE_BACKEND=postgres (docs/operations.md "Choosing a
 * queue backend"): the rate limits (rate-limit.repository.ts) and the pace of throttled sends
 * (queue/pace.repository.ts), shared by every process. Unlogged, as Redis without persistence:
 * a database crash empties them, which loosens a limit for one window, never loses a send.
 * Times are epoch ms, as the processes count them.
 */
export class QueueLimits1767700000000 implements MigrationInterface {
  name = 'QueueLimits1767700000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE UNLOGGED TABLE "rate_limits" ("key" text PRIMARY KEY, "hits" integer NOT NULL, "window_ends_at" bigint NOT NULL, "blocked_until" bigint NOT NULL)`,
    );
    await q.query(
      `CREATE UNLOGGED TABLE "pace_turns" ("key" text PRIMARY KEY, "used_until" double precision NOT NULL, "expires_at" double precision NOT NULL)`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "pace_turns"`);
    await q.query(`DROP TABLE "rate_limits"`);
  }
}
