import { DEADLOCK_DETECTED, pgError } from '../../common/pg-errors';
import { NewNotification } from '../../common/notification';
import { NotificationOptions } from '../../common/notification-options';

/**
 * A small send (docs/api.md#small-sends): transactional, due now, to at most `max` user or
 * installation ids. Anything paced or timed (a throttle, a local time, a marketing send's caps
 * and quiet hours, a send_at still ahead) and any send with variants go through the fan-out job.
 */
export function isSmallSend(
  send: Pick<NewNotification, 'recipient_kind' | 'user_ids' | 'installation_ids' | 'send_at' | 'options' | 'variants'>,
  max: number,
  now: number,
): boolean {
  const ids = smallSendIds(send);
  const options: NotificationOptions | null = send.options;
  return (
    ids !== null &&
    ids.length > 0 &&
    ids.length <= max &&
    (send.send_at === null || send.send_at.getTime() <= now) &&
    options?.category !== 'marketing' &&
    options?.local_time === undefined &&
    options?.throttle_per_minute === undefined &&
    // A send with variants takes the fan-out job: its rows are assigned there (docs/api.md#variants).
    send.variants === null
  );
}

/** The ids of a send to user or installation ids, else null. */
export const smallSendIds = (send: Pick<NewNotification, 'recipient_kind' | 'user_ids' | 'installation_ids'>): string[] | null =>
  send.recipient_kind === 'user_ids' ? send.user_ids : send.recipient_kind === 'installation_ids' ? send.installation_ids : null;

/**
 * A statement that met the partitions of deliveries in the making: a row that fits no partition
 * (check_violation), or a deadlock or lock timeout beside the DDL that creates one. A small send
 * that meets one is stored as any other send instead, and fanned out by its job.
 */
export function isPartitionRace(error: unknown): boolean {
  const cause = pgError(error);
  if (cause.code === '23514') return cause.message?.startsWith('no partition of relation') ?? false;
  return cause.code === DEADLOCK_DETECTED || cause.code === '55P03';
}
