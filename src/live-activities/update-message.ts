import { ValidationFailedError } from '../common/errors';
import { LIVE_ACTIVITY_PAYLOAD_LIMIT, LiveActivityMessage, liveActivityPayloadSize, unixSeconds } from '../delivery/providers/live-activity-payload';
import { LiveActivityUpdateDto } from './dto/live-activity.dto';

/**
 * The APNs message of an update body accepted at `acceptedAt` (docs/api.md#live-activity-updates);
 * one whose payload cannot fit APNs' 4 KiB is refused now, at `content_state`.
 */
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
