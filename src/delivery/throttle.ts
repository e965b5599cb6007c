/**
 * A throttled send's batch: half a second of its rate (at least one message, at most
 * `batchSize`). Each batch goes out at once when its turn comes, so a calendar second holds at
 * most a batch more than its share: under twice the even rate.
 */
export function throttleBatchSize(perMinute: number, batchSize: number): number {
  return Math.max(1, Math.min(batchSize, Math.floor(perMinute / 120)));
}
