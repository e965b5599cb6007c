/**
 * The completion rule, decided in SQL only, on a `notifications` row: a notification is complete
 * once its fan-out has finished and every installation it counted is accepted, failed or skipped.
 */
export const completionCondition = (added = '') => `fanned_out_at IS NOT NULL AND stat_accepted + stat_failed + stat_skipped${added} >= stat_installations`;
