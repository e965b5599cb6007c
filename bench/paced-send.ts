/**
 * A throttled send end to end (docs/api.md#pacing): the providers' request times of one send at
 * `perMinute`, and the most of them in any sliding second against the documented bound, the rate
 * plus two batches. The limit holds when a batch may start; a machine that stalls a batch's
 * requests can push them past it (bench/HISTORY.md "Pacing's sliding second").
 */
import { throttleBatchSize } from '../src/delivery/throttle';
import { notificationTotals, postTo } from './delivery';
import type { Seeded } from './lib/seed';
import type { Stack } from './lib/stack';

export interface PacedSendResult {
  perMinute: number;
  installations: number;
  accepted: number;
  /** Messages per batch (half a second of the rate, at most DELIVERY_BATCH_SIZE). */
  batch: number;
  /** First to last provider request. */
  seconds: number;
  /** The most requests in any sliding second, and docs/api.md#pacing's bound on it. */
  mostInASecond: number;
  bound: number;
}

/** The most of `times` (ms, sorted) within any window of `windowMs`. */
export function mostWithin(times: number[], windowMs: number): number {
  let most = 0;
  for (let i = 0, j = 0; i < times.length; i++) {
    while (times[i] - times[j] >= windowMs) j++;
    most = Math.max(most, i - j + 1);
  }
  return most;
}

/** The bound of docs/api.md#pacing on any sliding second: the rate plus two batches. */
export const slidingSecondBound = (perMinute: number, batch: number) => perMinute / 60 + 2 * batch;

export async function measurePacedSend(
  stack: Stack,
  seeded: Seeded,
  options: { users: number; perMinute: number; timeoutMs: number },
): Promise<PacedSendResult> {
  stack.resetFakes();
  const id = await postTo(stack, { user_ids: seeded.userIds.slice(0, options.users) }, { options: { throttle_per_minute: options.perMinute } });
  const deadline = Date.now() + options.timeoutMs;
  let totals = await notificationTotals(stack, [id]);
  while (totals.open > 0) {
    if (Date.now() > deadline) throw new Error(`paced send ${id} did not complete within ${options.timeoutMs} ms: ${JSON.stringify(totals)}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
    totals = await notificationTotals(stack, [id]);
  }
  const times = [...stack.apns.requests, ...stack.fcm.requests, ...stack.web.requests].map((r) => r.at.getTime()).sort((a, b) => a - b);
  stack.resetFakes();
  const batch = throttleBatchSize(options.perMinute, 500);
  return {
    perMinute: options.perMinute,
    installations: totals.installations,
    accepted: totals.accepted,
    batch,
    seconds: times.length > 1 ? (times[times.length - 1] - times[0]) / 1000 : 0,
    mostInASecond: mostWithin(times, 1000),
    bound: slidingSecondBound(options.perMinute, batch),
  };
}
