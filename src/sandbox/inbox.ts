import { DEFAULT_PUSH_PROVIDER, type Platform, type PushProviderName } from '../common/platform';
import type { ApnsRequestRecord } from './fake-apns';
import type { FcmRequestRecord } from './fake-fcm';
import type { HmsRequestRecord } from './fake-hms';
import type { WebPushRequestRecord } from './fake-web-push';
import { isPlainObject, tryParseJson } from './fake-server';

/** One push the sandbox accepted, as `GET /inbox` lists it (docs/testing.md#inbox). */
export interface InboxEntry {
  id: number;
  platform: Platform;
  /** The service's word for the push service (docs/api.md#push-provider): `unifiedpush` for an Android app's distributor. */
  push_provider: PushProviderName;
  token: string;
  notification_id: string | null;
  /** Without `authorization` and HTTP/2 pseudo-headers. */
  headers: Record<string, string>;
  /** APNs: the JSON body; FCM and Huawei: `message` (Huawei's without `token`); Web Push: the decrypted body. */
  payload: unknown;
  received_at: string;
}

export interface InboxQuery {
  platform?: string;
  token?: string;
  notification_id?: string;
  since?: Date;
}

/** Newest first when listed; past `limit` entries the oldest are forgotten. */
export class Inbox {
  private entries: InboxEntry[] = [];
  private nextId = 1;

  constructor(readonly limit = 10_000) {}

  apns(record: ApnsRequestRecord): void {
    if (record.status !== 200) return;
    const payload = record.payload;
    this.add('ios', record.token, notificationIdOf(isPlainObject(payload) ? payload.notification_id : undefined), record.headers, payload, record.at);
  }

  fcm(record: FcmRequestRecord): void {
    if (record.status !== 200 || record.validateOnly) return;
    const data = isPlainObject(record.message) && isPlainObject(record.message.data) ? record.message.data : undefined;
    this.add('android', record.token, notificationIdOf(data?.notification_id), record.headers, record.message, record.at);
  }

  /** One entry per token Huawei would have delivered to. */
  hms(record: HmsRequestRecord): void {
    if (record.validateOnly || record.status !== 200) return;
    const message = isPlainObject(record.message) ? record.message : {};
    const { token: _tokens, ...payload } = message;
    const data = typeof payload.data === 'string' ? tryParseJson(payload.data) : undefined;
    const notificationId = notificationIdOf(isPlainObject(data) ? data.notification_id : undefined);
    for (const token of record.tokens) {
      if (!record.illegal.includes(token)) this.add('huawei', token, notificationId, record.headers, payload, record.at);
    }
  }

  /** A browser's push, or an Android app's through its UnifiedPush distributor (platform `android`). */
  webPush(record: WebPushRequestRecord): void {
    if (record.status !== 201) return;
    const payload = record.payload ?? record.text ?? null;
    const id = notificationIdOf(isPlainObject(payload) ? payload.notification_id : undefined);
    if (record.unifiedPush) this.add('android', record.id, id, record.headers, payload, record.at, 'unifiedpush');
    else this.add('web', record.id, id, record.headers, payload, record.at);
  }

  list(query: InboxQuery = {}): InboxEntry[] {
    const since = query.since?.toISOString();
    const found: InboxEntry[] = [];
    for (let i = this.entries.length - 1; i >= 0; i--) {
      const entry = this.entries[i];
      if (since !== undefined && entry.received_at < since) continue;
      if (query.platform !== undefined && entry.platform !== query.platform) continue;
      if (query.token !== undefined && entry.token !== query.token) continue;
      if (query.notification_id !== undefined && entry.notification_id !== query.notification_id) continue;
      found.push(entry);
    }
    return found;
  }

  clear(): void {
    this.entries = [];
  }

  get size(): number {
    return this.entries.length;
  }

  private add(
    platform: Platform,
    token: string,
    notificationId: string | null,
    headers: Record<string, string>,
    payload: unknown,
    at: Date,
    provider: PushProviderName = DEFAULT_PUSH_PROVIDER[platform],
  ): void {
    this.entries.push({
      id: this.nextId++,
      platform,
      push_provider: provider,
      token,
      notification_id: notificationId,
      headers: Object.fromEntries(Object.entries(headers).filter(([name]) => name !== 'authorization' && !name.startsWith(':'))),
      payload,
      received_at: at.toISOString(),
    });
    // Trimmed in steps of a tenth, so that keeping the limit costs no copy per push.
    if (this.entries.length > this.limit) this.entries = this.entries.slice(-Math.floor(this.limit * 0.9));
  }
}

function notificationIdOf(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}
