import { hmsOutcomeOf, illegalTokensOf, UNAUTHORIZED } from './hms.provider';
import { HMS_MAX_TTL_SECONDS, hmsBody, hmsMessage, payloadSize, PushContent } from './payloads';

const content = (over: Partial<PushContent> = {}): PushContent => ({
  id: '0b9f6a1e-5a43-4c1e-9d56-1f1f2b6c7d8e',
  title: 'Order shipped',
  body: 'It arrives tomorrow',
  image_url: null,
  action_url: null,
  data: null,
  options: null,
  ...over,
});

describe("Huawei's message (docs/api.md#huawei)", () => {
  it('puts each field where HMS Core documents it', () => {
    const message = hmsMessage(
      content({
        image_url: 'https://cdn.example.com/a.png',
        action_url: 'https://shop.example.com/orders/42',
        data: { order: 42, kind: 'shipped' },
        options: {
          ttl: 600,
          priority: 'normal',
          android: { channel_id: 'orders', color: '#aabbcc', icon: 'ic_stat', click_action: 'OPEN_ORDER', visibility: 'private' },
        },
      }),
    );
    expect(message).toEqual({
      data: JSON.stringify({
        order: 42,
        kind: 'shipped',
        notification_id: '0b9f6a1e-5a43-4c1e-9d56-1f1f2b6c7d8e',
        action_url: 'https://shop.example.com/orders/42',
      }),
      notification: { title: 'Order shipped', body: 'It arrives tomorrow', image: 'https://cdn.example.com/a.png' },
      android: {
        urgency: 'NORMAL',
        ttl: '600s',
        notification: {
          click_action: { type: 1, action: 'OPEN_ORDER' },
          tag: '0b9f6a1e-5a43-4c1e-9d56-1f1f2b6c7d8e',
          channel_id: 'orders',
          color: '#aabbcc',
          icon: '/raw/ic_stat',
          visibility: 'PRIVATE',
        },
      },
    });
  });

  it('opens the app when no click_action is given, and collapses on options.android.tag over the collapse id', () => {
    const android = hmsMessage(content({ options: { collapse_id: 'order-42', android: { tag: 'orders' } } })).android as Record<string, any>;
    expect(android).toEqual({ urgency: 'HIGH', notification: { click_action: { type: 3 }, tag: 'orders' } });
    expect((hmsMessage(content({ options: { collapse_id: 'order-42' } })).android as any).notification.tag).toBe('order-42');
  });

  it('sends a silent send as a data message at normal urgency unless asked for high', () => {
    expect(hmsMessage(content({ title: null, body: null, data: { sync: true } }))).toEqual({
      data: JSON.stringify({ sync: true, notification_id: '0b9f6a1e-5a43-4c1e-9d56-1f1f2b6c7d8e' }),
      android: { urgency: 'NORMAL' },
    });
    expect(hmsMessage(content({ title: null, body: null, options: { priority: 'high' } })).android).toEqual({ urgency: 'HIGH' });
  });

  it('caps ttl at the 15 days Huawei keeps a message', () => {
    expect((hmsMessage(content({ options: { ttl: 2_419_200 } })).android as any).ttl).toBe(`${HMS_MAX_TTL_SECONDS}s`);
  });

  it('encodes the request once per content, with the batch of tokens and validate_only for a dry run', () => {
    const sent = content({ options: { dry_run: true } });
    const body = JSON.parse(hmsBody(sent, ['a', 'b']));
    expect(body).toEqual({ validate_only: true, message: { token: ['a', 'b'], ...hmsMessage(sent) } });
    expect(JSON.parse(hmsBody(content(), ['c'])).validate_only).toBe(false);
  });

  it('sizes the message as Huawei does: the body but its tokens', () => {
    const sent = content({ data: { note: 'x'.repeat(100) } });
    expect(payloadSize(sent, 'huawei')).toBe(Buffer.byteLength(JSON.stringify(hmsMessage(sent))));
  });
});

describe("Huawei's result codes (HMS Core 'Result Codes')", () => {
  const answer = (code: string, extra: Record<string, unknown> = {}) => JSON.stringify({ code, msg: 'x', requestId: '1690000000001', ...extra });

  it('accepts 80000000 with its requestId as the provider message id', () => {
    expect(hmsOutcomeOf(200, answer('80000000'), undefined)).toEqual({ each: { kind: 'accepted', providerMessageId: '1690000000001' } });
  });

  it('invalidates only the tokens an 80100000 lists, in either shape Huawei gives them', () => {
    const outcome = hmsOutcomeOf(200, answer('80100000', { msg: JSON.stringify({ success: 1, failure: 1, illegal_tokens: ['bad'] }) }), undefined);
    expect(outcome).toEqual({ each: { kind: 'accepted', providerMessageId: '1690000000001' }, illegal: new Set(['bad']), illegalReason: '80100000' });
    expect(illegalTokensOf(JSON.stringify({ illegalTokens: { tokenFormatError: ['a'], noRight: ['b'] }, failure: 2 }))).toEqual(new Set(['a', 'b']));
    expect(illegalTokensOf('not json')).toEqual(new Set());
  });

  it('invalidates every token on 80300007, and fails an oversize message as PayloadTooLarge', () => {
    expect(hmsOutcomeOf(400, answer('80300007'), undefined)).toEqual({ each: { kind: 'invalid', reason: '80300007' } });
    expect(hmsOutcomeOf(400, answer('80300008'), undefined)).toEqual({ each: { kind: 'failed', reason: 'PayloadTooLarge' } });
  });

  it('asks for a new access token on 401 (80200001, 80200003)', () => {
    expect(hmsOutcomeOf(401, answer('80200003'), undefined)).toBe(UNAUTHORIZED);
    expect(hmsOutcomeOf(401, answer('80200001'), undefined)).toBe(UNAUTHORIZED);
  });

  it('retries 5xx, 429, 80600003 and 81000001, honouring Retry-After', () => {
    expect(hmsOutcomeOf(503, answer('81000001'), '7')).toEqual({ each: { kind: 'retry', reason: '81000001', retryAfterMs: 7000 } });
    expect(hmsOutcomeOf(502, '<html>', undefined)).toEqual({ each: { kind: 'retry', reason: 'HTTP 502' } });
    expect(hmsOutcomeOf(200, answer('80600003'), undefined)).toEqual({ each: { kind: 'retry', reason: '80600003' } });
  });

  it('fails a message Huawei refuses (80100003, 80300011) with its code', () => {
    expect(hmsOutcomeOf(400, answer('80100003'), undefined)).toEqual({ each: { kind: 'failed', reason: '80100003' } });
    expect(hmsOutcomeOf(400, answer('80300011'), undefined)).toEqual({ each: { kind: 'failed', reason: '80300011' } });
  });
});
