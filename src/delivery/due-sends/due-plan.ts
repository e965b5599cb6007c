import { isSmallSend } from '../small-sends/small-send';
import type { ClaimedDueSend } from './due-sends.repository';

/**
 * A claimed group's plan (docs/api.md#due-sends): the small sends (small-send rules, docs/api.md#small-sends)
 * are fanned out in the group's transaction; the others each get a fan-out job, in the claim's order
 * (app by app), which is the order the FIFO fan-out queue runs them in.
 */
export function planDueGroup(claimed: readonly ClaimedDueSend[], maxRecipients: number): { small: ClaimedDueSend[]; fanouts: ClaimedDueSend[] } {
  const small: ClaimedDueSend[] = [];
  const fanouts: ClaimedDueSend[] = [];
  for (const send of claimed) (isSmallSend(send, maxRecipients, send.send_at.getTime()) ? small : fanouts).push(send);
  return { small, fanouts };
}
