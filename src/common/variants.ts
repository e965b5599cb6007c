import { createHash } from 'node:crypto';

/**
 * Variants and the A/B test with a winner (docs/api.md#variants, docs/api.md#a-b-test-with-a-winner):
 * who gets which variant, who is in the sample, and which variant wins. The assignment is written
 * twice, here (the rule, unit-tested on 100,000 users) and as SQL for the fan-out's chunk statement
 * (`variantSql`, `inSampleSql`); test/integration/variants.int-spec.ts holds the two to the same answers.
 */

export const VARIANT_KEY = /^[a-z0-9_]{1,16}$/;
export const VARIANTS_MIN = 2;
export const VARIANTS_MAX = 5;
export const VARIANT_WEIGHT = { min: 1, max: 100 } as const;
export const AB_SAMPLE_PERCENT = { min: 1, max: 50 } as const;
export const AB_METRICS = ['opened', 'displayed'] as const;
export type AbMetric = (typeof AB_METRICS)[number];
export const AB_PHASES = ['sample', 'winner', 'done'] as const;
export type AbPhase = (typeof AB_PHASES)[number];
export const WINNER_AFTER = /^([1-9][0-9]{0,4})(m|h)$/;
export const WINNER_AFTER_MIN_MS = 5 * 60_000;
export const WINNER_AFTER_MAX_MS = 72 * 3_600_000;

/** The next_attempt_at of a row held for an A/B test's winner: never due, so never claimed nor owed a job, until the decision releases it. */
export const HELD_SQL = `'infinity'::timestamptz`;

/** A variant as stored with its notification: its texts (a template's resolved), and the template it came from. */
export interface StoredVariant {
  key: string;
  weight: number;
  notification: {
    title: string | null;
    body: string | null;
    image_url: string | null;
    action_url: string | null;
    localizations: Record<string, Record<string, string>> | null;
  };
  /** The template it was sent from, or null for an inline notification. */
  template: { key: string; version: number } | null;
  /** The template's variables (rendered as `vars`), or null. */
  variables: Record<string, unknown> | null;
}

/** `winner_after` in milliseconds, or null when it is not `<n>m|h` within 5 minutes..72 hours. */
export function winnerAfterMs(text: string): number | null {
  const match = WINNER_AFTER.exec(text);
  if (!match) return null;
  const ms = Number(match[1]) * (match[2] === 'h' ? 3_600_000 : 60_000);
  return ms >= WINNER_AFTER_MIN_MS && ms <= WINNER_AFTER_MAX_MS ? ms : null;
}

/** Who a variant is chosen for: the user, else the installation (so a user's devices agree). */
export const subjectOf = (userId: string | null, installationId: string): string => (userId !== null ? `u:${userId}` : `i:${installationId}`);

/** The two 32-bit draws of a subject for a notification: md5 of `<notification id>:<subject>`, first and second four bytes. */
function draws(notificationId: string, subject: string): [number, number] {
  const digest = createHash('md5').update(`${notificationId}:${subject}`).digest();
  return [digest.readUInt32BE(0), digest.readUInt32BE(4)];
}

/** The variant (index in the list) a subject gets: the first draw modulo the weights' sum, placed among their running totals. */
export function variantOf(notificationId: string, subject: string, weights: readonly number[]): number {
  const total = weights.reduce((sum, weight) => sum + weight, 0);
  const point = draws(notificationId, subject)[0] % total;
  let upTo = 0;
  for (let index = 0; index < weights.length; index++) {
    upTo += weights[index];
    if (point < upTo) return index;
  }
  return weights.length - 1;
}

/** Whether a subject is in an A/B test's sample: the second draw modulo 100 below `samplePercent`. */
export function inSample(notificationId: string, subject: string, samplePercent: number): boolean {
  return draws(notificationId, subject)[1] % 100 < samplePercent;
}

/** The running totals but the last, the thresholds `width_bucket` places a point among (variantSql). */
export function variantThresholds(weights: readonly number[]): number[] {
  const thresholds: number[] = [];
  let upTo = 0;
  for (const weight of weights.slice(0, -1)) thresholds.push((upTo += weight));
  return thresholds;
}

const SUBJECT_SQL = (userId: string, installationId: string) => `CASE WHEN ${userId} IS NOT NULL THEN 'u:' || ${userId} ELSE 'i:' || ${installationId} END`;
/** Hex digits `from`..`from+7` of the md5, as a non-negative bigint. */
const DRAW_SQL = (notificationId: string, subject: string, from: number) =>
  `('x' || lpad(substr(md5(${notificationId} || ':' || ${subject}), ${from}, 8), 16, '0'))::bit(64)::bigint`;

/** variantOf in SQL: the index of a row's variant; `total` is the weights' sum, `thresholds` variantThresholds(weights). */
export const variantSql = (notificationId: string, userId: string, installationId: string, total: string, thresholds: string) =>
  `width_bucket(${DRAW_SQL(notificationId, SUBJECT_SQL(userId, installationId), 1)} % ${total}, ${thresholds})`;

/** inSample in SQL. */
export const inSampleSql = (notificationId: string, userId: string, installationId: string, samplePercent: string) =>
  `${DRAW_SQL(notificationId, SUBJECT_SQL(userId, installationId), 9)} % 100 < ${samplePercent}`;

/** One variant's figures at the decision: its accepted messages and how many of them reported the metric. */
export interface VariantTally {
  accepted: number;
  metric: number;
}

/**
 * The winner (docs/api.md#a-b-test-with-a-winner): the highest metric per accepted message; a
 * variant with none accepted scores 0; ties go to the first listed.
 */
export function pickWinner(tallies: readonly VariantTally[]): number {
  const score = (t: VariantTally): [number, number] => (t.accepted > 0 ? [t.metric, t.accepted] : [0, 1]);
  let best = 0;
  tallies.forEach((tally, index) => {
    const [m, a] = score(tally);
    const [bm, ba] = score(tallies[best]);
    // m/a > bm/ba, exactly (no floating point ties).
    if (m * ba > bm * a) best = index;
  });
  return best;
}

/** The A/B test's phase as the API shows it: `done` once the notification has completed. */
export const abPhaseShown = (stored: string | null, completedAt: Date | null): AbPhase | null =>
  stored === null ? null : completedAt !== null ? 'done' : (stored as AbPhase);
