/** Live Activity pushes (docs/api.md#live-activities): pure, so the API also sizes updates with them. */

export const LIVE_ACTIVITY_PAYLOAD_LIMIT = 4096;
export const LIVE_ACTIVITY_PUSH_TYPE = 'liveactivity';
export const LIVE_ACTIVITY_TOPIC_SUFFIX = '.push-type.liveactivity';

export interface LiveActivityAlert {
  title?: string;
  body?: string;
  sound?: string;
}

export interface LiveActivityMessage {
  event: 'start' | 'update' | 'end';
  contentState: Record<string, unknown>;
  timestamp: number;
  priority: 'high' | 'normal';
  alert?: LiveActivityAlert | null;
  staleDate?: number | null;
  dismissalDate?: number | null;
  relevanceScore?: number | null;
  start?: { attributesType: string; attributes: Record<string, unknown>; channelId?: string | null } | null;
}

export const unixSeconds = (instant: string | Date): number => Math.floor(new Date(instant).getTime() / 1000);

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

/** Priority 5 unless `high`: Apple budgets priority 10 updates. */
export function liveActivityHeaders(message: Pick<LiveActivityMessage, 'priority'>, bundleId: string): Record<string, string> {
  return {
    'apns-push-type': LIVE_ACTIVITY_PUSH_TYPE,
    'apns-topic': `${bundleId}${LIVE_ACTIVITY_TOPIC_SUFFIX}`,
    'apns-priority': message.priority === 'high' ? '10' : '5',
  };
}

export const liveActivityPayloadSize = (message: LiveActivityMessage): number => Buffer.byteLength(JSON.stringify(liveActivityPayload(message)));
