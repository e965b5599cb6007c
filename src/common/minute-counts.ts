/**
 * The per-minute counters (`delivery_minutes`, delivery/delivery-minute.entity.ts) that the
 * operator dashboard draws: an INSERT, for use as a data-modifying CTE, that adds one to the
 * current minute's count of each row of `outcomes`, a query whose rows are `(notification_id,
 * status)`. Every statement that ends deliveries carries it, so the counters add up to the statistics.
 */
export function minuteCountsInsert(outcomes: string): string {
  return `INSERT INTO delivery_minutes AS m (notification_id, minute, outcome, count)
    SELECT notification_id, date_trunc('minute', now()), status, count(*)::int
    FROM (${outcomes}) AS o(notification_id, status) GROUP BY notification_id, status
    ORDER BY notification_id, status
    ON CONFLICT (notification_id, minute, outcome) DO UPDATE SET count = m.count + EXCLUDED.count`;
}
