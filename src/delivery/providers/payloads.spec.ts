import { apnsHeaders, apnsPayload, fcmMessage, PAYLOAD_LIMITS, payloadSize, PushContent, targetedPlatforms, webPushPayload, webPushTopicOf } from './payloads';

const ID = '0b9a5f4e-2c1d-4e8f-9a7b-6c5d4e3f2a1b';
const bare: PushContent = { id: ID, title: 'Hello', body: 'World', image_url: null, action_url: null, data: null, options: null };
const full: PushContent = {
  id: ID,
  title: 'Order shipped',
  body: 'Your order is on its way',
  image_url: 'https://img.example/1.png',
  action_url: 'https://app.example/orders/1',
  data: { order: 1, tags: ['a'], note: 'x' },
  options: { ttl: 3600, priority: 'normal', collapse_id: 'order-1', badge: 2, sound: 'ping.caf', platforms: ['ios', 'web'] },
};

describe('payload builders', () => {
  it('APNs: alert, optional sound, badge and mutable-content, our fields beside aps', () => {
    expect(apnsPayload(bare)).toEqual({ aps: { alert: { title: 'Hello', body: 'World' } }, notification_id: ID });
    expect(apnsPayload(full)).toEqual({
      aps: { alert: { title: 'Order shipped', body: 'Your order is on its way' }, sound: 'ping.caf', badge: 2, 'mutable-content': 1 },
      notification_id: ID,
      image_url: 'https://img.example/1.png',
      action_url: 'https://app.example/orders/1',
      data: { order: 1, tags: ['a'], note: 'x' },
    });
  });

  it('APNs headers: priority 10 unless normal, the collapse id, an expiration only with a ttl (0 stays 0)', () => {
    expect(apnsHeaders(bare, 1000)).toEqual({ 'apns-push-type': 'alert', 'apns-priority': '10', 'apns-collapse-id': ID });
    expect(apnsHeaders(full, 1000)).toEqual({ 'apns-push-type': 'alert', 'apns-priority': '5', 'apns-collapse-id': 'order-1', 'apns-expiration': '4600' });
    expect(apnsHeaders({ ...bare, options: { ttl: 0 } }, 1000)['apns-expiration']).toBe('0');
  });

  it('FCM: string data values (others JSON-encoded), notification id and action url in data, android options', () => {
    expect(fcmMessage(full, 'tok')).toEqual({
      token: 'tok',
      notification: { title: 'Order shipped', body: 'Your order is on its way', image: 'https://img.example/1.png' },
      data: { order: '1', tags: '["a"]', note: 'x', notification_id: ID, action_url: 'https://app.example/orders/1' },
      android: { priority: 'NORMAL', collapse_key: 'order-1', ttl: '3600s' },
    });
    expect(fcmMessage(bare, 'tok')).toEqual({
      token: 'tok',
      notification: { title: 'Hello', body: 'World' },
      data: { notification_id: ID },
      android: { priority: 'HIGH', collapse_key: ID },
    });
  });

  it('Web Push: the notification fields, and a Topic of at most 32 URL-safe characters', () => {
    expect(webPushPayload(bare)).toEqual({ notification_id: ID, title: 'Hello', body: 'World' });
    expect(webPushTopicOf(bare)).toBe(Buffer.from(ID.replace(/-/g, ''), 'hex').toString('base64url'));
    for (const content of [bare, full]) expect(webPushTopicOf(content)).toMatch(/^[A-Za-z0-9_-]{1,32}$/);
    expect(webPushTopicOf(full)).not.toBe(webPushTopicOf({ ...full, options: { collapse_id: 'order-2' } }));
  });

  it('sizes each payload as its provider counts it, against that provider’s limit', () => {
    expect(payloadSize(bare, 'ios')).toBe(Buffer.byteLength(JSON.stringify(apnsPayload(bare))));
    expect(payloadSize(bare, 'web')).toBe(Buffer.byteLength(JSON.stringify(webPushPayload(bare))));
    // FCM: data keys and values, notification texts; no JSON punctuation.
    const { notification, data } = fcmMessage(full, '') as { notification: Record<string, string>; data: Record<string, string> };
    const fcmBytes = [...Object.entries(data).flat(), ...Object.values(notification)].reduce((sum, text) => sum + Buffer.byteLength(text), 0);
    expect(payloadSize(full, 'android')).toBe(fcmBytes);
    // Bytes, not characters: 2,100 two-byte characters are over 4,096 bytes.
    const big = { ...bare, body: 'é'.repeat(2100) };
    expect(big.body.length).toBe(2100);
    expect(payloadSize(big, 'ios')).toBeGreaterThan(PAYLOAD_LIMITS.ios);
    expect(payloadSize(big, 'android')).toBeGreaterThan(PAYLOAD_LIMITS.android);
    expect(payloadSize({ ...bare, body: 'e'.repeat(2100) }, 'android')).toBeLessThan(PAYLOAD_LIMITS.android);
    expect(PAYLOAD_LIMITS).toEqual({ ios: 4096, android: 4096, web: 3993 });
  });

  it('targets every platform unless the send names some', () => {
    expect(targetedPlatforms(bare)).toEqual(['ios', 'android', 'web']);
    expect(targetedPlatforms(full)).toEqual(['ios', 'web']);
  });
});
