import { isPlainObject } from './fake-server';
import { topicFor } from './apns-live-activity';

/**
 * What APNs checks of a WidgetKit push (Apple's "Updating widgets with WidgetKit push
 * notifications"): push type `widgets`, topic `<bundle id>.push-type.widgets`, and the payload
 * `{"aps": {"content-changed": true}}` with nothing else.
 */

export const WIDGETS_PUSH_TYPE = 'widgets';
export const WIDGETS_TOPIC_SUFFIX = '.push-type.widgets';

/** The bundle id the topic names for its push type, or undefined (APNs: `TopicDisallowed`); Live Activity topics as apns-live-activity.ts says. */
export function bundleIdOf(topic: string, pushType: string | undefined): string | undefined {
  const suffixed = topic.endsWith(WIDGETS_TOPIC_SUFFIX);
  if (pushType === WIDGETS_PUSH_TYPE) return suffixed ? topic.slice(0, -WIDGETS_TOPIC_SUFFIX.length) : undefined;
  return suffixed ? undefined : topicFor(topic, pushType);
}

/** A widgets push's payload as Apple gives it, else `BadPayload`; `content-changed` in another push type is refused too. */
export function widgetsProblem(pushType: string, payload: Record<string, unknown>): { status: number; reason: string } | undefined {
  const bad = { status: 400, reason: 'BadPayload' };
  const aps = payload.aps;
  if (!isPlainObject(aps)) return bad;
  if (pushType !== WIDGETS_PUSH_TYPE) return aps['content-changed'] === undefined ? undefined : bad;
  const keys = Object.keys(payload);
  if (keys.length !== 1 || Object.keys(aps).length !== 1 || aps['content-changed'] !== true) return bad;
  return undefined;
}
