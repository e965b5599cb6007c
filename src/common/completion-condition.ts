/**
 * The completion rule, decided in SQL only, on a `notifications` row: a notification is complete
 * once its fan-out has finished and every installation it counted is accepted, failed or skipped.
 * `added` is SQL for outcomes counted in the same statement, not yet in the row. Here, in common,
 * because both the worker (outcomes) and the API (cancelling, docs/api.md#scheduling) complete
 * notifications; every statement that sets `completed_at` uses it. Its cases are tested in
 * test/integration/delivery-storage.int-spec.ts.
 */
export const completionCondition = (added = '') => `fanned_out_at IS NOT NULL AND stat_accepted + stat_failed + stat_skipped${added} >= stat_installations`;
