import { ValidationFailedError } from '../common/errors';
import { LIVE_ACTIVITY_PAYLOAD_LIMIT, LiveActivityMessage, liveActivityPayloadSize, unixSeconds } from '../delivery/providers/live-activity-payload';
import { LiveActivityUpdateDto } from './dto/live-activity.dto';
import type { NewLiveActivityUpdate } from './live-activities.repository';

/** An enqueue Redis does not confirm by then is given up (logged): the worker's sweeper queues it later. */
export const ENQUEUE_TIMEOUT_MS = 2_000;

/** The APNs message of an update accepted at `acceptedAt`; one that cannot fit 4 KiB is a 422 at `content_state`. */
export function updateMessage(dto: LiveActivityUpdateDto, acceptedAt: Date): LiveActivityMessage {
  const message: LiveActivityMessage = {
    event: dto.event,
    contentState: dto.content_state,
    timestamp: unixSeconds(acceptedAt),
    priority: dto.priority ?? 'normal',
    alert: dto.alert,
    staleDate: dto.stale_date ? unixSeconds(dto.stale_date) : null,
    dismissalDate: dto.dismissal_date ? unixSeconds(dto.dismissal_date) : null,
    relevanceScore: dto.relevance_score,
  };
  const size = liveActivityPayloadSize(message);
  if (size > LIVE_ACTIVITY_PAYLOAD_LIMIT) {
    throw ValidationFailedError.of('content_state', `The update must fit APNs' ${LIVE_ACTIVITY_PAYLOAD_LIMIT}-byte payload limit (it would be ${size} bytes).`);
  }
  return message;
}

/** What is stored of an update or broadcast body; `content` is JSON text. */
export function storedUpdate(dto: LiveActivityUpdateDto, acceptedAt: Date): NewLiveActivityUpdate {
  const content = {
    content_state: dto.content_state,
    alert: dto.alert ?? null,
    stale_date: dto.stale_date ?? null,
    dismissal_date: dto.dismissal_date ?? null,
    relevance_score: dto.relevance_score ?? null,
  };
  return { event: dto.event, content: JSON.stringify(content), priority: dto.priority ?? 'normal', acceptedAt };
}

export async function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([promise, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('timed out')), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}
