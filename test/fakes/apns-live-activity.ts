import { isPlainObject } from './fake-server';

/**
 * What APNs checks of a Live Activity push (Apple's "Starting and updating Live Activities with
 * ActivityKit push notifications"), kept apart from fake-apns.ts, which calls it through two small
 * hooks: the topic a push type needs, and the `aps` rules of `apns-push-type: liveactivity`.
 */

export const LIVE_ACTIVITY_PUSH_TYPE = 'liveactivity';
/** A Live Activity push goes to `<bundle id>.push-type.liveactivity`, never to the bare bundle id. */
export const LIVE_ACTIVITY_TOPIC_SUFFIX = '.push-type.liveactivity';
const EVENTS = new Set(['start', 'update', 'end']);
/** Tolerated clock skew for a `timestamp` a little ahead of ours. */
const CLOCK_SKEW_SECONDS = 60;

export interface LiveActivityRejection {
  status: number;
  reason: string;
  /** Which rule refused it, for a test's assertion (APNs itself only says the reason). */
  rule: string;
}

/**
 * The bundle id a request's topic names for its push type, or undefined when the two do not go
 * together (a Live Activity to the app's topic, an alert to the Live Activity topic): APNs then
 * answers `TopicDisallowed`.
 */
export function topicFor(topic: string, pushType: string | undefined): string | undefined {
  const suffixed = topic.endsWith(LIVE_ACTIVITY_TOPIC_SUFFIX);
  if (pushType === LIVE_ACTIVITY_PUSH_TYPE) return suffixed ? topic.slice(0, -LIVE_ACTIVITY_TOPIC_SUFFIX.length) : undefined;
  return suffixed ? undefined : topic;
}

const isUnixSeconds = (value: unknown): value is number => typeof value === 'number' && Number.isInteger(value) && value > 0;

/**
 * The `aps` of a Live Activity push: `event` one of start/update/end; `content-state` an object;
 * `timestamp` in whole seconds, not in the future (a millisecond value is); `attributes-type` and
 * `attributes` on start only and required there, with an alert (a start must show one);
 * `input-push-token` / `input-push-channel` on start only; `dismissal-date` on end only; every
 * date in Unix seconds; `relevance-score` a number.
 */
export function liveActivityProblem(aps: Record<string, unknown>, nowMs = Date.now()): LiveActivityRejection | undefined {
  const bad = (rule: string): LiveActivityRejection => ({ status: 400, reason: 'BadPayload', rule });
  const event = aps.event;
  if (typeof event !== 'string' || !EVENTS.has(event)) return bad('event');
  if (!isPlainObject(aps['content-state'])) return bad('content-state');
  const timestamp = aps.timestamp;
  if (!isUnixSeconds(timestamp)) return bad('timestamp');
  if (timestamp > Math.floor(nowMs / 1000) + CLOCK_SKEW_SECONDS) return bad('timestamp-future');
  const start = event === 'start';
  if (start !== (aps['attributes-type'] !== undefined)) return bad('attributes-type');
  if (start !== (aps.attributes !== undefined)) return bad('attributes');
  if (start && (typeof aps['attributes-type'] !== 'string' || !isPlainObject(aps.attributes))) return bad('attributes');
  if (start && !isPlainObject(aps.alert)) return bad('alert');
  if (!start && (aps['input-push-token'] !== undefined || aps['input-push-channel'] !== undefined)) return bad('input-push');
  if (aps['input-push-token'] !== undefined && aps['input-push-token'] !== 1) return bad('input-push');
  if (aps['input-push-channel'] !== undefined && typeof aps['input-push-channel'] !== 'string') return bad('input-push');
  if (aps['dismissal-date'] !== undefined && (event !== 'end' || !isUnixSeconds(aps['dismissal-date']))) return bad('dismissal-date');
  if (aps['stale-date'] !== undefined && !isUnixSeconds(aps['stale-date'])) return bad('stale-date');
  const score = aps['relevance-score'];
  if (score !== undefined && typeof score !== 'number') return bad('relevance-score');
  return undefined;
}
