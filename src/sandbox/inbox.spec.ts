import type { ApnsRequestRecord } from './fake-apns';
import type { FcmRequestRecord } from './fake-fcm';
import type { HmsRequestRecord } from './fake-hms';
import type { WebPushRequestRecord } from './fake-web-push';
import { Inbox } from './inbox';

const at = (second: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, second));
const apns = (token: string, status: number, second: number, id = 'n1'): ApnsRequestRecord => ({
  token,
  headers: { ':path': `/3/device/${token}`, authorization: 'bearer secret', 'apns-topic': 't' },
  payload: { aps: { alert: 'Hi' }, notification_id: id },
  text: '',
  status,
  jwt: 'secret',
  apnsId: 'x',
  at: at(second),
});

describe('sandbox inbox (docs/testing.md#inbox)', () => {
  it('keeps only what was accepted, without the credential or pseudo-headers, newest first', () => {
    const inbox = new Inbox();
    inbox.apns(apns('a', 200, 1));
    inbox.apns(apns('b', 400, 2));
    inbox.fcm({ token: 'f', status: 200, validateOnly: true, message: {}, headers: {}, at: at(3) } as unknown as FcmRequestRecord);
    inbox.fcm({
      token: 'f',
      status: 200,
      validateOnly: false,
      message: { data: { notification_id: 'n2' } },
      headers: {},
      at: at(4),
    } as unknown as FcmRequestRecord);
    inbox.webPush({ id: 's', status: 201, payload: undefined, text: 'plain', headers: {}, at: at(5) } as unknown as WebPushRequestRecord);
    inbox.webPush({ id: 's', status: 410, headers: {}, at: at(6) } as unknown as WebPushRequestRecord);
    expect(inbox.list().map((e) => [e.platform, e.token, e.notification_id, e.payload])).toEqual([
      ['web', 's', null, 'plain'],
      ['android', 'f', 'n2', { data: { notification_id: 'n2' } }],
      ['ios', 'a', 'n1', { aps: { alert: 'Hi' }, notification_id: 'n1' }],
    ]);
    expect(inbox.list({ platform: 'ios' })[0].headers).toEqual({ 'apns-topic': 't' });
    expect(inbox.list({ since: at(4) }).map((e) => e.platform)).toEqual(['web', 'android']);
    expect(inbox.list({ notification_id: 'n1', token: 'a' })).toHaveLength(1);
    inbox.clear();
    expect(inbox.list()).toEqual([]);
  });

  it('forgets the oldest past its limit', () => {
    const inbox = new Inbox(10);
    for (let n = 0; n < 25; n++) inbox.apns(apns(`t${n}`, 200, n, `n${n}`));
    expect(inbox.size).toBeLessThanOrEqual(10);
    expect(inbox.list()[0].token).toBe('t24');
  });

  it('lists one entry per token Huawei accepted, the message without its tokens, never a validate_only or illegal one', () => {
    const inbox = new Inbox();
    const record = (over: Partial<HmsRequestRecord>): HmsRequestRecord =>
      ({
        tokens: ['h1', 'h2', 'bad'],
        illegal: ['bad'],
        status: 200,
        validateOnly: false,
        message: { token: ['h1', 'h2', 'bad'], data: '{"notification_id":"n3"}', notification: { title: 'T', body: 'B' } },
        headers: { authorization: 'Bearer x' },
        at: at(7),
        ...over,
      }) as HmsRequestRecord;
    inbox.hms(record({ validateOnly: true }));
    inbox.hms(record({ status: 400 }));
    inbox.hms(record({ message: { token: ['h1'], data: 'not json' }, tokens: ['h1'], illegal: [] }));
    inbox.hms(record({}));
    expect(inbox.list().map((e) => [e.platform, e.token, e.notification_id, e.headers])).toEqual([
      ['huawei', 'h2', 'n3', {}],
      ['huawei', 'h1', 'n3', {}],
      ['huawei', 'h1', null, {}],
    ]);
    expect(inbox.list({ token: 'h2' })[0].payload).toEqual({ data: '{"notification_id":"n3"}', notification: { title: 'T', body: 'B' } });
  });

  it('files a push to a UnifiedPush endpoint under android, push_provider unifiedpush', () => {
    const inbox = new Inbox();
    const payload = { notification_id: 'n3', title: 'Hi', body: 'There' };
    inbox.webPush({ id: 'u', status: 201, payload, unifiedPush: true, headers: {}, at: at(1) } as unknown as WebPushRequestRecord);
    inbox.webPush({ id: 'w', status: 201, payload, unifiedPush: false, headers: {}, at: at(2) } as unknown as WebPushRequestRecord);
    expect(inbox.list().map((e) => [e.platform, e.push_provider, e.token, e.notification_id])).toEqual([
      ['web', 'web_push', 'w', 'n3'],
      ['android', 'unifiedpush', 'u', 'n3'],
    ]);
  });
});
