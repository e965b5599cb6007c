import fc from 'fast-check';
import { createECDH, randomBytes } from 'node:crypto';
import webpush from 'web-push';
import {
  apnsBody,
  apnsHeaderFields,
  apnsHeaders,
  apnsPayload,
  contentFor,
  declarativeWebPushPayload,
  fcmBody,
  fcmMessage,
  hmsMessage,
  apnsTopicOf,
  isBackground,
  MAX_BADGE,
  PAYLOAD_LIMITS,
  payloadSize,
  PushContent,
  targetedPlatforms,
  unifiedPushPayload,
  webPushBody,
  webPushHeaderFields,
  webPushPayload,
  webPushTopicOf,
  webPushUrgencyOf,
} from './payloads';

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
    expect(PAYLOAD_LIMITS).toEqual({ ios: 4096, android: 4096, web: 3993, huawei: 4096 });
  });

  it('targets every platform unless the send names some', () => {
    expect(targetedPlatforms(bare)).toEqual(['ios', 'android', 'web', 'huawei']);
    expect(targetedPlatforms(full)).toEqual(['ios', 'web']);
  });
});

describe('message kinds (docs/api.md#message-kinds)', () => {
  const silent: PushContent = {
    ...bare,
    title: null,
    body: null,
    data: { sync: 1 },
    options: { content_available: true, priority: 'high', badge: 3, sound: 's' },
  };

  it('a silent send: APNs background push at priority 5 without alert, sound or badge; FCM data-only', () => {
    expect(JSON.stringify(apnsPayload(silent))).toBe(`{"aps":{"content-available":1},"notification_id":"${ID}","data":{"sync":1}}`);
    expect(apnsHeaders(silent, 1000)).toEqual({ 'apns-push-type': 'background', 'apns-priority': '5', 'apns-collapse-id': ID });
    expect(fcmMessage(silent, 'tok')).toEqual({ token: 'tok', data: { sync: '1', notification_id: ID }, android: { priority: 'HIGH', collapse_key: ID } });
    expect(isBackground(silent)).toBe(true);
  });

  it('a silent send asks FCM for normal priority unless options.priority says high (docs/api.md#silent-sends)', () => {
    const quiet = { ...silent, options: { content_available: true } };
    expect((fcmMessage(quiet, 'tok').android as { priority: string }).priority).toBe('NORMAL');
    expect((fcmMessage({ ...quiet, options: { content_available: true, priority: 'high' } }, 'tok').android as { priority: string }).priority).toBe('HIGH');
    // A send that shows something stays high unless told.
    expect((fcmMessage(bare, 'tok').android as { priority: string }).priority).toBe('HIGH');
  });

  it("FCM's 2025 fields: proxy in android.notification (upper case), the booleans in android, on data messages too (docs/api.md#platform-fields)", () => {
    const android = { proxy: 'if_priority_lowered', bandwidth_constrained_ok: true, restricted_satellite_ok: false, direct_boot_ok: true } as const;
    expect(fcmMessage({ ...bare, options: { android } }, 'tok').android).toEqual({
      priority: 'HIGH',
      collapse_key: ID,
      bandwidth_constrained_ok: true,
      restricted_satellite_ok: false,
      direct_boot_ok: true,
      notification: { proxy: 'IF_PRIORITY_LOWERED' },
    });
    // A data message has no notification for proxy to go in: the booleans still go.
    expect(fcmMessage({ ...bare, title: null, body: null, options: { content_available: true, android } }, 'tok').android).toEqual({
      priority: 'NORMAL',
      collapse_key: ID,
      bandwidth_constrained_ok: true,
      restricted_satellite_ok: false,
      direct_boot_ok: true,
    });
    // Huawei has no equivalent of any of the four.
    expect(JSON.stringify(hmsMessage({ ...bare, options: { android } }))).not.toMatch(/proxy|bandwidth|satellite|direct_boot/);
  });

  it('a widget push: push type widgets, topic <bundle id>.push-type.widgets, {"aps":{"content-changed":true}} alone (docs/api.md#widgets)', () => {
    const widgets: PushContent = { ...bare, title: null, body: null, options: { widgets: true } };
    expect(JSON.stringify(apnsPayload(widgets))).toBe('{"aps":{"content-changed":true}}');
    expect(apnsHeaders(widgets, 1000)).toEqual({ 'apns-push-type': 'widgets', 'apns-priority': '5', 'apns-collapse-id': ID });
    expect(apnsTopicOf(widgets, 'com.example.app')).toBe('com.example.app.push-type.widgets');
    expect(apnsTopicOf(bare, 'com.example.app')).toBe('com.example.app');
    expect(targetedPlatforms(widgets)).toEqual(['ios']);
    expect(targetedPlatforms({ ...widgets, options: { widgets: true, platforms: ['android', 'web'] } })).toEqual([]);
    expect(isBackground(bare)).toBe(false);
  });

  it('content_available with a notification adds content-available to the alert', () => {
    expect(apnsPayload({ ...bare, options: { content_available: true } }).aps).toEqual({ alert: { title: 'Hello', body: 'World' }, 'content-available': 1 });
  });

  it('maps options.apns, options.android and options.web; the Urgency of options.web wins', () => {
    const options = {
      apns: { subtitle: 'S', interruption_level: 'passive', relevance_score: 0.5, thread_id: 't', category: 'c', target_content_id: 'x' },
      android: { channel_id: 'ch', tag: 'tg', color: '#000000', icon: 'i', click_action: 'a', visibility: 'secret' },
      web: {
        icon: 'https://i',
        badge: 'https://b',
        tag: 'w',
        require_interaction: false,
        renotify: true,
        silent: true,
        urgency: 'very-low',
        actions: [{ title: 'T', action: 'a' }],
      },
    } as const;
    const content: PushContent = { ...bare, options: options as never };
    expect(JSON.stringify(apnsPayload(content).aps)).toBe(
      '{"alert":{"title":"Hello","body":"World","subtitle":"S"},"interruption-level":"passive","relevance-score":0.5,"thread-id":"t","category":"c","target-content-id":"x"}',
    );
    expect((fcmMessage(content, 'tok').android as Record<string, unknown>).notification).toEqual({
      channel_id: 'ch',
      tag: 'tg',
      color: '#000000',
      icon: 'i',
      click_action: 'a',
      visibility: 'SECRET',
    });
    expect(JSON.stringify(webPushPayload(content))).toBe(
      `{"notification_id":"${ID}","title":"Hello","body":"World","icon":"https://i","badge":"https://b","tag":"w","require_interaction":false,"renotify":true,"silent":true,"actions":[{"action":"a","title":"T"}]}`,
    );
    expect(webPushUrgencyOf(content)).toBe('very-low');
    expect(webPushUrgencyOf({ ...bare, options: { priority: 'normal' } })).toBe('normal');
  });

  it('a silent send is never checked against the web limit: web installations are skipped', () => {
    expect(targetedPlatforms(silent)).toEqual(['ios', 'android', 'huawei']);
    expect(targetedPlatforms({ ...silent, options: { content_available: true, platforms: ['web', 'ios'] } })).toEqual(['ios']);
  });

  it('the size check counts the platform fields, and a badge increment as the largest badge', () => {
    const android = { ...bare, options: { android: { channel_id: 'c'.repeat(64) } } };
    expect(payloadSize(android, 'android') - payloadSize(bare, 'android')).toBe(64);
    const increment = { ...bare, options: { badge_increment: 1 } };
    expect(payloadSize(increment, 'ios') - payloadSize(bare, 'ios')).toBe(`,"badge":${MAX_BADGE}`.length);
  });
});

describe('request bodies, encoded once per content (apnsBody, fcmBody, webPushBody)', () => {
  const increment: PushContent = { ...full, options: { ...full.options, badge: undefined, badge_increment: 1 } };
  const quiet: PushContent = { ...bare, title: null, body: null, data: { sync: 1 }, options: { content_available: true } };
  const localized: PushContent = { ...full, localizations: { fr: { title: 'Commande expédiée' }, 'pt-BR': { body: 'A caminho' } } };

  it('are the payload builders’ JSON, byte for byte, whatever the token or badge', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), fc.integer({ min: 0, max: MAX_BADGE }), (token, badge) => {
        for (const content of [bare, full, increment, localized, quiet]) {
          expect(fcmBody(content, token)).toBe(JSON.stringify({ message: fcmMessage(content, token) }));
          const dry = { ...content, options: { ...content.options, dry_run: true } };
          expect(fcmBody(dry, token)).toBe(JSON.stringify({ validate_only: true, message: fcmMessage(dry, token) }));
          expect(apnsBody(content).toString()).toBe(JSON.stringify(apnsPayload(content)));
          expect(apnsBody(content, badge).toString()).toBe(JSON.stringify(apnsPayload({ ...content, options: { ...content.options, badge } })));
          expect(webPushBody(content).toString()).toBe(JSON.stringify(webPushPayload(content)));
        }
      }),
    );
  });

  it('APNs bodies are encoded once per content and badge: the same bytes object each time', () => {
    for (const content of [bare, full, increment, localized, quiet]) {
      expect(apnsBody(content)).toBe(apnsBody(content));
      expect(apnsBody(content, 7)).toBe(apnsBody(content, 7));
      expect(apnsBody(content, 8)).not.toBe(apnsBody(content, 7));
    }
  });

  it('APNs headers as a flat list: apnsHeaders and the topic, one list per send and second', () => {
    const fields = apnsHeaderFields(full, 'com.example.app', 1000);
    expect(fields).toEqual([...Object.entries(apnsHeaders(full, 1000)).flat(), 'apns-topic', 'com.example.app']);
    expect(apnsHeaderFields(full, 'com.example.app', 1000)).toBe(fields);
    // A TTL counts from the send: the next second has its own apns-expiration.
    const later = apnsHeaderFields(full, 'com.example.app', 1001);
    expect(later[later.indexOf('apns-expiration') + 1]).toBe('4601');
    // Without a TTL nothing moves with the clock; another topic is another list.
    const untimed = apnsHeaderFields(bare, 'com.example.app', 1000);
    expect(apnsHeaderFields(bare, 'com.example.app', 5000)).toBe(untimed);
    expect(apnsHeaderFields(bare, 'com.example.other', 5000)).toEqual([...untimed.slice(0, -1), 'com.example.other']);
  });

  it('Web Push headers as a flat list, one per content: what web-push gives the same message, but authorization', () => {
    const userAgent = createECDH('prime256v1');
    const p256dh = userAgent.generateKeys('base64url');
    const subscription = { endpoint: 'https://push.example/send/1', keys: { p256dh, auth: randomBytes(16).toString('base64url') } };
    for (const content of [bare, full]) {
      const fields = webPushHeaderFields(content);
      const ours = Object.fromEntries(fields.flatMap((name, i) => (i % 2 === 0 ? [[name, fields[i + 1]]] : [])));
      // web-push's own TTL default when the notification sets none; its Content-Length from its own encryption.
      const options = { TTL: content.options?.ttl, urgency: webPushUrgencyOf(content), topic: webPushTopicOf(content), contentEncoding: 'aes128gcm' } as const;
      const theirs = webpush.generateRequestDetails(subscription, webPushBody(content), options).headers as Record<string, unknown>;
      expect(ours).toEqual(Object.fromEntries(Object.entries(theirs).map(([name, value]) => [name.toLowerCase(), String(value)])));
      expect(webPushHeaderFields(content)).toBe(fields);
      expect(webPushBody(content)).toBe(webPushBody(content));
    }
  });

  it('an increment’s body carries the count reached, not the increment', () => {
    expect(JSON.parse(apnsBody(increment, 7).toString()).aps.badge).toBe(7);
    expect(JSON.parse(apnsBody(increment, 0).toString()).aps.badge).toBe(0);
    expect(JSON.parse(apnsBody(increment).toString()).aps.badge).toBeUndefined();
  });

  it('a localization is one object per variant, so its bodies are encoded once', () => {
    const fr = contentFor(localized, 'fr_FR');
    expect(contentFor(localized, 'fr-CA')).toBe(fr);
    expect(fr.title).toBe('Commande expédiée');
    expect(contentFor(localized, 'pt-PT')).toBe(contentFor(localized, 'pt-BR'));
    expect(contentFor(localized, 'de')).toBe(localized);
    expect(contentFor(bare, 'fr')).toBe(bare);
    expect(JSON.parse(webPushBody(fr).toString()).title).toBe('Commande expédiée');
  });
});

describe('UnifiedPush and declarative Web Push payloads', () => {
  it('UnifiedPush (docs/api.md#unifiedpush): the message as one JSON object, with the send id; no browser fields', () => {
    const web = { ...full, options: { ...full.options, web: { tag: 'order-1', icon: 'https://img.example/i.png' } } };
    expect(unifiedPushPayload(web)).toEqual({
      notification_id: ID,
      title: 'Order shipped',
      body: 'Your order is on its way',
      image_url: 'https://img.example/1.png',
      action_url: 'https://app.example/orders/1',
      data: { order: 1, tags: ['a'], note: 'x' },
    });
    expect(unifiedPushPayload(bare)).toEqual({ notification_id: ID, title: 'Hello', body: 'World' });
    // Encoded once per content and kind, apart from the browser's body; its Content-Length is its own.
    const unified = webPushBody(web, 'unifiedpush');
    expect(unified.toString()).toBe(JSON.stringify(unifiedPushPayload(web)));
    expect(webPushBody(web, 'unifiedpush')).toBe(unified);
    expect(webPushBody(web).toString()).toBe(JSON.stringify(webPushPayload(web)));
    const fields = webPushHeaderFields(web, 'unifiedpush');
    expect(fields).toBe(webPushHeaderFields(web, 'unifiedpush'));
    expect(fields[fields.indexOf('content-length') + 1]).not.toBe(webPushHeaderFields(web)[webPushHeaderFields(web).indexOf('content-length') + 1]);
  });

  it('declarative (docs/api.md#declarative-web-push): web_push 8030, navigate from action_url, app_badge from badge, our id and data in data, mutable false', () => {
    const declarative: PushContent = { ...full, options: { ...full.options, web: { declarative: true, silent: true } } };
    expect(webPushPayload(declarative)).toEqual({
      web_push: 8030,
      notification: {
        title: 'Order shipped',
        body: 'Your order is on its way',
        navigate: 'https://app.example/orders/1',
        silent: true,
        app_badge: 2,
        data: { notification_id: ID, data: { order: 1, tags: ['a'], note: 'x' } },
      },
      mutable: false,
    });
    expect(declarativeWebPushPayload({ ...bare, action_url: 'https://app.example/', options: { web: { declarative: true } } })).toEqual({
      web_push: 8030,
      notification: { title: 'Hello', body: 'World', navigate: 'https://app.example/', data: { notification_id: ID } },
      mutable: false,
    });
    // A localization's text carries its language tag.
    const localized: PushContent = { ...declarative, localizations: { fr: { title: 'Commande expédiée', action_url: 'https://app.example/fr/1' } } };
    expect(JSON.parse(webPushBody(contentFor(localized, 'fr-FR')).toString())).toEqual({
      web_push: 8030,
      notification: {
        title: 'Commande expédiée',
        body: 'Your order is on its way',
        navigate: 'https://app.example/fr/1',
        lang: 'fr',
        silent: true,
        app_badge: 2,
        data: { notification_id: ID, data: { order: 1, tags: ['a'], note: 'x' } },
      },
      mutable: false,
    });
    expect(payloadSize(declarative, 'web')).toBe(Buffer.byteLength(JSON.stringify(declarativeWebPushPayload(declarative))));
  });
});
