import type { TestContext } from './create-test-app';
import { waitFor } from './wait-for';

/**
 * Waits until the worker's retention has made the weekly partitions of deliveries and
 * notification_events two weeks ahead, its last DDL at start-up. A small send that meets that DDL
 * falls back to its fan-out job (docs/api.md#small-sends); a test of the small-send path itself
 * waits for it first.
 */
export function retentionPartitionsMade(ctx: TestContext): Promise<true> {
  return waitFor(async () => {
    const [{ n }] = await ctx.db.query(
      `SELECT count(DISTINCT i.inhparent)::int AS n FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
       WHERE i.inhparent IN ('deliveries'::regclass, 'notification_events'::regclass)
         AND (regexp_match(pg_get_expr(c.relpartbound, c.oid), 'TO \\(''([^'']+)''\\)'))[1]::timestamptz > now() + interval '14 days'`,
    );
    return n === 2 ? true : null;
  }, "retention's partitions");
}
