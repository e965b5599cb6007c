import { randomBytes } from 'node:crypto';
import { constants as h2, type OutgoingHttpHeaders, type ServerHttp2Stream } from 'node:http2';
import { isPlainObject } from './fake-server';

/** What APNs checks of a Live Activity push (Apple's ActivityKit push guide), through two hooks of fake-apns.ts. */

export const LIVE_ACTIVITY_PUSH_TYPE = 'liveactivity';
export const LIVE_ACTIVITY_TOPIC_SUFFIX = '.push-type.liveactivity';
const EVENTS = new Set(['start', 'update', 'end']);
const CLOCK_SKEW_SECONDS = 60;

export interface LiveActivityRejection {
  status: number;
  reason: string;
  rule: string;
}

/** The bundle id the topic names for its push type, or undefined (APNs: `TopicDisallowed`). */
export function topicFor(topic: string, pushType: string | undefined): string | undefined {
  const suffixed = topic.endsWith(LIVE_ACTIVITY_TOPIC_SUFFIX);
  if (pushType === LIVE_ACTIVITY_PUSH_TYPE) return suffixed ? topic.slice(0, -LIVE_ACTIVITY_TOPIC_SUFFIX.length) : undefined;
  return suffixed ? undefined : topic;
}

const isUnixSeconds = (value: unknown): value is number => typeof value === 'number' && Number.isInteger(value) && value > 0;

/** What APNs refuses in a Live Activity's `aps` (events, seconds not ms, start-only and end-only fields). */
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

const CHANNEL_PATH = /^\/1\/apps\/([^/?]+)\/(channels|all-channels)$/;
const BROADCAST_PATH = /^\/4\/broadcasts\/apps\/([^/?]+)$/;
const CHANNEL_ID = /^[A-Za-z0-9+/]{22}==$/;

export interface ChannelAnswer {
  status: number;
  headers?: Record<string, string>;
  body?: Record<string, unknown>;
}

export interface FakeChannel {
  bundleId: string;
  storagePolicy: 0 | 1;
}

export const isChannelPath = (path: string) => CHANNEL_PATH.test(path) || BROADCAST_PATH.test(path);
export const isBroadcastPath = (path: string) => BROADCAST_PATH.test(path);

/** iOS 18 broadcast channels as APNs keeps them: create, read, list, delete, and broadcasts to a live channel. */
export class FakeApnsChannels {
  readonly channels = new Map<string, FakeChannel>();

  answer(
    method: string,
    path: string,
    headers: Record<string, string>,
    body: string,
    allowed: (bundleId: string) => boolean,
    nowMs = Date.now(),
  ): ChannelAnswer {
    const broadcast = BROADCAST_PATH.exec(path);
    const managed = CHANNEL_PATH.exec(path);
    const bundleId = decodeURIComponent((broadcast ?? managed)![1]);
    if (!allowed(bundleId)) return { status: 400, body: { reason: 'TopicDisallowed' } };
    const channelId = headers['apns-channel-id'];
    const known = () => channelId !== undefined && this.channels.get(channelId)?.bundleId === bundleId;

    if (broadcast) {
      if (method !== 'POST') return { status: 405, body: { reason: 'MethodNotAllowed' } };
      if (channelId === undefined) return { status: 400, body: { reason: 'MissingChannelId' } };
      if (!CHANNEL_ID.test(channelId)) return { status: 400, body: { reason: 'BadChannelId' } };
      if (!known()) return { status: 400, body: { reason: 'ChannelNotRegistered' } };
      if (headers['apns-push-type'] !== LIVE_ACTIVITY_PUSH_TYPE) return { status: 400, body: { reason: 'InvalidPushType' } };
      if (headers['apns-priority'] !== undefined && !['5', '10'].includes(headers['apns-priority'])) return { status: 400, body: { reason: 'BadPriority' } };
      const payload = parse(body);
      if (!isPlainObject(payload) || !isPlainObject(payload.aps)) return { status: 400, body: { reason: 'BadPayload' } };
      // A broadcast updates or ends the activities listening to the channel; it cannot start one.
      if (payload.aps.event === 'start') return { status: 400, body: { reason: 'BadPayload' } };
      const problem = liveActivityProblem(payload.aps, nowMs);
      return problem ? { status: problem.status, body: { reason: problem.reason } } : { status: 200 };
    }

    if (managed![2] === 'all-channels') {
      if (method !== 'GET') return { status: 405, body: { reason: 'MethodNotAllowed' } };
      return { status: 200, body: { channels: [...this.channels].filter(([, channel]) => channel.bundleId === bundleId).map(([id]) => id) } };
    }
    if (method === 'POST') {
      const request = parse(body);
      if (!isPlainObject(request)) return { status: 400, body: { reason: 'BadPayload' } };
      if (request['push-type'] !== 'LiveActivity') return { status: 400, body: { reason: 'InvalidPushType' } };
      const policy = request['message-storage-policy'];
      if (policy !== 0 && policy !== 1) return { status: 400, body: { reason: 'BadMessageStoragePolicy' } };
      const id = randomBytes(16).toString('base64');
      this.channels.set(id, { bundleId, storagePolicy: policy });
      return { status: 201, headers: { 'apns-channel-id': id } };
    }
    if (method !== 'GET' && method !== 'DELETE') return { status: 405, body: { reason: 'MethodNotAllowed' } };
    if (channelId === undefined) return { status: 400, body: { reason: 'MissingChannelId' } };
    if (!CHANNEL_ID.test(channelId)) return { status: 400, body: { reason: 'BadChannelId' } };
    if (!known()) return { status: 404, body: { reason: 'ChannelNotRegistered' } };
    if (method === 'DELETE') {
      this.channels.delete(channelId);
      return { status: 204 };
    }
    return { status: 200, body: { 'message-storage-policy': this.channels.get(channelId)!.storagePolicy, 'push-type': 'LiveActivity' } };
  }
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

export function respondToChannelRequest(stream: ServerHttp2Stream, requestId: string, answer: ChannelAnswer): void {
  if (stream.destroyed || stream.headersSent) return;
  const headers: OutgoingHttpHeaders = { [h2.HTTP2_HEADER_STATUS]: answer.status, 'apns-request-id': requestId, ...answer.headers };
  if (answer.body === undefined) {
    stream.respond(headers, { endStream: true });
    return;
  }
  stream.respond({ ...headers, [h2.HTTP2_HEADER_CONTENT_TYPE]: 'application/json; charset=utf-8' });
  stream.end(JSON.stringify(answer.body));
}
