/** A notification's progress, as its row counts it. */
export interface Progress {
  fannedOut: boolean;
  installations: number;
  accepted: number;
  failed: number;
  skipped: number;
}

/**
 * The completion rule: a notification is complete once its fan-out has finished and every
 * installation it counted is accepted, failed or skipped. Its SQL twin is
 * `completionCondition()` in common/completion-condition.ts, which the statements that set
 * `completed_at` use; test/integration/delivery-storage.int-spec.ts checks that both agree.
 */
export function isComplete(p: Progress): boolean {
  return p.fannedOut && p.accepted + p.failed + p.skipped >= p.installations;
}
