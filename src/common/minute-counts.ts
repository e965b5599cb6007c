/**
 * The per-minute counters (`delivery_minutes`, delivery/delivery-minute.entity.ts) that the operator
 * dashboard draws: an INSERT, for use as a data-modifying CTE, that adds one to the current minute's
 * count of each row of `outcomes`, a query whose rows are `(notification_id, status)`. One row per
 * notification, minute and outcome per statement, not per delivery, in a stable order so two
 * statements lock them alike.
 *
 * Every statement that ends deliveries carries it, so the counters add up to the statistics: the
 * outcomes of attempts (RECORD_OUTCOMES_SQL), the rows the fan-out skips (fanOutChunkSql) and those
 * a cancel skips (CANCEL_ROWS_SQL). Left unreferenced by the statement's own query, PostgreSQL runs
 * it after that query, so it locks its counter rows after the notification's row, the order every
 * writer of both follows (no deadlock between a fan-out and a write of outcomes).
 */
export function minuteCountsInsert(outcomes: string): string {
  return `INSERT INTO delivery_minutes AS m (notification_id, minute, outcome, count)
    SELECT notification_id, date_trunc('minute', now()), status, count(*)::int
    FROM (${outcomes}) AS o(notification_id, status) GROUP BY notification_id, status
    ORDER BY notification_id, status
    ON CONFLICT (notification_id, minute, outcome) DO UPDATE SET count = m.count + EXCLUDED.count`;
}
