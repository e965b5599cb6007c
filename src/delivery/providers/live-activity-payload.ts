/**
 * Live Activity pushes (docs/api.md#live-activities), as Apple's "Starting and updating Live
 * Activities with ActivityKit push notifications" describes them: pure functions, used by the APNs
 * provider to send and by the API to refuse, at once, an update that cannot fit.
 */

/** Apple's limit for a Live Activity payload, as for an alert. */
export const LIVE_ACTIVITY_PAYLOAD_LIMIT = 4096;
export const LIVE_ACTIVITY_PUSH_TYPE = 'liveactivity';
/** The topic of a Live Activity push: the app's bundle id with this suffix. */
export const LIVE_ACTIVITY_TOPIC_SUFFIX = '.push-type.liveactivity';

export interface LiveActivityAlert {
  title?: string;
  body?: string;
  sound?: string;
}

/** One Live Activity push; dates are Unix seconds, as APNs wants them. */
export interface LiveActivityMessage {
  event: 'start' | 'update' | 'end';
  contentState: Record<string, unknown>;
  /** `aps.timestamp`: the second the API accepted the update. */
  timestamp: number;
  priority: 'high' | 'normal';
  alert?: LiveActivityAlert | null;
  staleDate?: number | null;
  dismissalDate?: number | null;
  relevanceScore?: number | null;
  /** Only with `event: start`: what the activity is, and where its updates will come from. */
  start?: { attributesType: string; attributes: Record<string, unknown>; channelId?: string | null } | null;
}

/** Instant (ISO text or Date) to whole Unix seconds. */
export const unixSeconds = (instant: string | Date): number => Math.floor(new Date(instant).getTime() / 1000);

/** The JSON body: `aps` only, with Apple's hyphenated keys; absent options are left out. */
export function liveActivityPayload(message: LiveActivityMessage): { aps: Record<string, unknown> } {
  const aps: Record<string, unknown> = { event: message.event, timestamp: message.timestamp, 'content-state': message.contentState };
  if (message.alert) aps.alert = message.alert;
  if (message.staleDate != null) aps['stale-date'] = message.staleDate;
  if (message.dismissalDate != null) aps['dismissal-date'] = message.dismissalDate;
  if (message.relevanceScore != null) aps['relevance-score'] = message.relevanceScore;
  if (message.start) {
    aps['attributes-type'] = message.start.attributesType;
    aps.attributes = message.start.attributes;
    // The started activity listens to the channel, or gets an update token (pushTokenUpdates).
    if (message.start.channelId) aps['input-push-channel'] = message.start.channelId;
    else aps['input-push-token'] = 1;
  }
  return { aps };
}

/** The headers besides authorization: priority 5 unless `high` (Apple budgets priority 10 updates). */
export function liveActivityHeaders(message: Pick<LiveActivityMessage, 'priority'>, bundleId: string): Record<string, string> {
  return {
    'apns-push-type': LIVE_ACTIVITY_PUSH_TYPE,
    'apns-topic': `${bundleId}${LIVE_ACTIVITY_TOPIC_SUFFIX}`,
    'apns-priority': message.priority === 'high' ? '10' : '5',
  };
}

/** Bytes of the body as sent. */
export const liveActivityPayloadSize = (message: LiveActivityMessage): number => Buffer.byteLength(JSON.stringify(liveActivityPayload(message)));
