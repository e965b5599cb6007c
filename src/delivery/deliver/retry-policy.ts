/**
 * Delay before retry number `attempt` (1-based): base * 2^(attempt-1), capped, with +-20% jitter so
 * many failed sends do not come back at the same instant. A longer Retry-After from the provider
 * wins.
 */
export function retryDelayMs(attempt: number, baseMs: number, maxMs: number, retryAfterMs = 0, random = Math.random): number {
  const exponential = Math.min(maxMs, baseMs * 2 ** Math.max(0, attempt - 1));
  const jittered = Math.round(exponential * (0.8 + 0.4 * random()));
  return Math.max(Math.min(jittered, maxMs), retryAfterMs);
}
