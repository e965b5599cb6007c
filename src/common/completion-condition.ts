/**
 * The completion rule of delivery/completion.ts (`isComplete`) in SQL, on a `notifications` row;
 * `added` is SQL for outcomes counted in the same statement, not yet in the row. Here, in common,
 * because both the worker (outcomes) and the API (cancelling, docs/api.md#scheduling) complete
 * notifications. The two are kept equal by test/e2e/delivery-storage.e2e-spec.ts.
 */
export const completionCondition = (added = '') =>
  `fanned_out_at IS NOT NULL AND stat_accepted + stat_failed + stat_skipped${added} >= stat_installations`;
