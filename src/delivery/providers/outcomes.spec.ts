import { outcomeOf as apnsOutcome } from './apns.provider';
import { outcomeOf as fcmOutcome, tokenFailure } from './fcm.provider';
import { retryAfterMs, transportReason } from './provider-http';
import { outcomeOfAnswer as webPushOutcome } from './web-push.provider';

/** Provider answers → what delivery does with the installation: invalidate it, retry later, or fail. */
describe('provider error mapping', () => {
  describe('APNs', () => {
    const answer = (status: number, reason?: string, headers: Record<string, string> = {}) => ({
      status,
      headers,
      body: reason === undefined ? '' : JSON.stringify({ reason }),
    });

    it('accepts a 200', () => {
      expect(apnsOutcome(answer(200))).toEqual({ kind: 'accepted' });
    });

    it('keeps apns-id as the provider message id, and apns-unique-id after a space when Apple gives one (docs/api.md#provider-message-ids)', () => {
      const id = '6f0e6a39-4c3b-4f5e-9a2d-1b8c7d6e5f4a';
      const unique = '0a8a5e6b-0c5d-4e1a-b2f7-3d9c8b7a6e5f';
      expect(apnsOutcome(answer(200, undefined, { 'apns-id': id }))).toEqual({ kind: 'accepted', providerMessageId: id });
      expect(apnsOutcome(answer(200, undefined, { 'apns-id': id, 'apns-unique-id': unique }))).toEqual({
        kind: 'accepted',
        providerMessageId: `${id} ${unique}`,
      });
    });

    it('invalidates the token on 410 and on a bad or foreign token', () => {
      expect(apnsOutcome(answer(410, 'Unregistered'))).toEqual({ kind: 'invalid', reason: 'Unregistered' });
      expect(apnsOutcome(answer(400, 'BadDeviceToken'))).toEqual({ kind: 'invalid', reason: 'BadDeviceToken' });
      expect(apnsOutcome(answer(400, 'DeviceTokenNotForTopic'))).toEqual({ kind: 'invalid', reason: 'DeviceTokenNotForTopic' });
    });

    it('retries on 429, 5xx (with Retry-After), a transport failure and a provider token called expired', () => {
      expect(apnsOutcome(answer(429, 'TooManyRequests', { 'retry-after': '7' }))).toEqual({ kind: 'retry', reason: 'TooManyRequests', retryAfterMs: 7000 });
      expect(apnsOutcome(answer(503, 'ServiceUnavailable'))).toEqual({ kind: 'retry', reason: 'ServiceUnavailable' });
      expect(apnsOutcome({ failure: 'ECONNRESET' })).toEqual({ kind: 'retry', reason: 'ECONNRESET' });
      expect(apnsOutcome(answer(403, 'ExpiredProviderToken'))).toEqual({ kind: 'retry', reason: 'ExpiredProviderToken' });
    });

    it('fails anything else, with the reason or the status', () => {
      expect(apnsOutcome(answer(400, 'PayloadTooLarge'))).toEqual({ kind: 'failed', reason: 'PayloadTooLarge' });
      expect(apnsOutcome(answer(403, 'InvalidProviderToken'))).toEqual({ kind: 'failed', reason: 'InvalidProviderToken' });
      expect(apnsOutcome({ status: 400, headers: {}, body: '<html>' })).toEqual({ kind: 'failed', reason: 'HTTP 400' });
    });
  });

  describe('FCM', () => {
    const error = (status: string, message: string, errorCode?: string) =>
      JSON.stringify({
        error: {
          status,
          message,
          details: errorCode ? [{ '@type': 'type.googleapis.com/google.firebase.fcm.v1.FcmError', errorCode }] : [],
        },
      });

    it('accepts a 2xx', () => {
      expect(fcmOutcome(200, '{"name":"projects/p/messages/1"}', undefined)).toEqual({ kind: 'accepted', providerMessageId: 'projects/p/messages/1' });
      expect(fcmOutcome(200, 'not json', undefined)).toEqual({ kind: 'accepted' });
    });

    it('invalidates UNREGISTERED and an invalid registration token', () => {
      expect(fcmOutcome(404, error('NOT_FOUND', 'Requested entity was not found.', 'UNREGISTERED'), undefined)).toEqual({
        kind: 'invalid',
        reason: 'UNREGISTERED',
      });
      expect(fcmOutcome(400, error('INVALID_ARGUMENT', 'The registration token is not a valid FCM registration token'), undefined)).toEqual({
        kind: 'invalid',
        reason: 'INVALID_ARGUMENT',
      });
    });

    it('fails other invalid arguments and payloads too large, without invalidating', () => {
      expect(fcmOutcome(400, error('INVALID_ARGUMENT', 'Invalid value at message.android.ttl'), undefined)).toEqual({
        kind: 'failed',
        reason: 'INVALID_ARGUMENT',
      });
      expect(fcmOutcome(400, error('INVALID_ARGUMENT', 'Message is too big'), undefined)).toEqual({ kind: 'failed', reason: 'PayloadTooLarge' });
      expect(fcmOutcome(403, error('PERMISSION_DENIED', 'SenderId mismatch', 'SENDER_ID_MISMATCH'), undefined)).toEqual({
        kind: 'failed',
        reason: 'SENDER_ID_MISMATCH',
      });
    });

    it('retries on 429 and 5xx, honouring Retry-After, even with a body that is not Google JSON', () => {
      expect(fcmOutcome(429, error('RESOURCE_EXHAUSTED', 'Quota', 'QUOTA_EXCEEDED'), '30')).toEqual({
        kind: 'retry',
        reason: 'QUOTA_EXCEEDED',
        retryAfterMs: 30_000,
      });
      expect(fcmOutcome(502, '<html>Bad Gateway</html>', undefined)).toEqual({ kind: 'retry', reason: 'HTTP 502' });
    });

    it('retries a token endpoint that is down and fails one that refuses the key', () => {
      const tokenUrl = new URL('https://oauth2.googleapis.com/token');
      expect(tokenFailure(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }), tokenUrl)).toEqual({
        kind: 'retry',
        reason: 'TokenEndpoint:ECONNREFUSED oauth2.googleapis.com',
      });
      expect(tokenFailure({ response: { status: 503 } }, tokenUrl)).toEqual({ kind: 'retry', reason: 'TokenEndpoint:HTTP 503' });
      expect(tokenFailure({ response: { status: 400, data: { error: 'invalid_grant' } } }, tokenUrl)).toEqual({
        kind: 'failed',
        reason: 'OAuth:invalid_grant',
      });
    });
  });

  describe('Web Push', () => {
    const answer = (status: number, headers: Record<string, string> = {}) => ({ status, headers, body: '' });

    it('accepts a 2xx, invalidates 404 and 410, fails 413 and other 4xx, retries 429 and 5xx', () => {
      expect(webPushOutcome(answer(201))).toEqual({ kind: 'accepted' });
      // RFC 8030 §5: the message resource's Location is the provider message id.
      expect(webPushOutcome(answer(201, { location: 'https://push.example/message/abc' }))).toEqual({
        kind: 'accepted',
        providerMessageId: 'https://push.example/message/abc',
      });
      expect(webPushOutcome(answer(404))).toEqual({ kind: 'invalid', reason: 'NotFound' });
      expect(webPushOutcome(answer(410))).toEqual({ kind: 'invalid', reason: 'Gone' });
      expect(webPushOutcome(answer(413))).toEqual({ kind: 'failed', reason: 'PayloadTooLarge' });
      expect(webPushOutcome(answer(403))).toEqual({ kind: 'failed', reason: 'HTTP 403' });
      expect(webPushOutcome(answer(429, { 'retry-after': '2' }))).toEqual({ kind: 'retry', reason: 'HTTP 429', retryAfterMs: 2000 });
      expect(webPushOutcome(answer(500))).toEqual({ kind: 'retry', reason: 'HTTP 500' });
      expect(webPushOutcome({ failure: 'Timeout' })).toEqual({ kind: 'retry', reason: 'Timeout' });
    });
  });

  it('reads Retry-After as seconds or as an HTTP date, and ignores what it cannot read', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(retryAfterMs('120', now)).toBe(120_000);
    expect(retryAfterMs(['5'], now)).toBe(5000);
    expect(retryAfterMs('Thu, 01 Jan 2026 00:00:30 GMT', now)).toBe(30_000);
    expect(retryAfterMs('Wed, 31 Dec 2025 23:00:00 GMT', now)).toBe(0);
    expect(retryAfterMs('soon', now)).toBeUndefined();
    expect(retryAfterMs(undefined, now)).toBeUndefined();
  });

  it('names transport errors briefly', () => {
    expect(transportReason(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }))).toBe('ECONNRESET');
    expect(transportReason(Object.assign(new Error('aborted'), { name: 'AbortError' }))).toBe('Timeout');
    expect(transportReason(new Error('Stream closed with error code NGHTTP2_REFUSED_STREAM'))).toBe('NGHTTP2_REFUSED_STREAM');
    expect(transportReason(new TypeError('fetch failed', { cause: Object.assign(new Error('x'), { code: 'ENOTFOUND' }) }))).toBe('ENOTFOUND');
  });

  it('names the underlying cause, not the wrapper: a stream cancelled by its failed connection is the connection error', () => {
    const dns = Object.assign(new Error('getaddrinfo ENOTFOUND apns.invalid'), { code: 'ENOTFOUND' });
    const cancelled = Object.assign(new Error('The pending stream has been canceled (caused by: getaddrinfo ENOTFOUND apns.invalid)'), {
      code: 'ERR_HTTP2_STREAM_CANCEL',
      cause: dns,
    });
    expect(transportReason(cancelled)).toBe('ENOTFOUND');
    const gaxios = Object.assign(new Error('request to https://oauth2.invalid/token failed'), {
      cause: new TypeError('fetch failed', { cause: Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' }) }),
    });
    expect(transportReason(gaxios)).toBe('ECONNREFUSED');
  });
});
