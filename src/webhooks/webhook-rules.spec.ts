import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { isDelivered, newSecret, parseEvents, parseUrl, retryDelayMs, signedHeaders, WebhookError } from './webhook-rules';

describe('webhook rules (docs/api.md#webhooks)', () => {
  describe('retryDelayMs', () => {
    it('waits about 5 s before the first retry, five times longer each time', () => {
      expect([1, 2, 3, 4, 5, 6, 7].map((attempt) => retryDelayMs(attempt))).toEqual([5_000, 25_000, 125_000, 625_000, 3_125_000, 15_625_000, 78_125_000]);
    });

    it('spreads the default 8 attempts over about a day', () => {
      const total = [1, 2, 3, 4, 5, 6, 7].reduce((sum, attempt) => sum + retryDelayMs(attempt), 0);
      expect(total / 3_600_000).toBeGreaterThan(20);
      expect(total / 3_600_000).toBeLessThan(30);
    });

    it('never waits more than a day at once', () => {
      expect(retryDelayMs(8)).toBe(24 * 3_600_000);
      expect(retryDelayMs(30)).toBe(24 * 3_600_000);
    });
  });

  describe('parseEvents', () => {
    it('takes known types, trimmed, each once', () => {
      expect(parseEvents(' notification.completed,installation.invalidated ,notification.completed')).toEqual([
        'notification.completed',
        'installation.invalidated',
      ]);
    });

    it('refuses an unknown type and an empty list', () => {
      expect(() => parseEvents('notification.completed,notification.sent')).toThrow(
        new WebhookError(
          'Unknown event "notification.sent": --events takes notification.completed, notification.canceled, installation.invalidated, inbox.read, notification.ab_test_decided',
        ),
      );
      expect(() => parseEvents(' , ')).toThrow(WebhookError);
    });
  });

  describe('parseUrl', () => {
    it('takes http:// and https:// URLs', () => {
      expect(parseUrl('https://hooks.example.com/push?x=1')).toBe('https://hooks.example.com/push?x=1');
      expect(parseUrl('http://127.0.0.1:8080')).toBe('http://127.0.0.1:8080/');
    });

    it('refuses other schemes, relative URLs, credentials and overly long URLs', () => {
      for (const bad of [
        'ftp://example.com/',
        'example.com/hook',
        'javascript:alert(1)',
        'https://user:pw@example.com/',
        `https://example.com/${'a'.repeat(2048)}`,
      ]) {
        expect(() => parseUrl(bad)).toThrow(WebhookError);
      }
    });
  });

  it('makes secrets of whsec_ and 32 random bytes', () => {
    const secret = newSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    expect(Buffer.from(secret.slice(6), 'base64')).toHaveLength(32);
    expect(newSecret()).not.toBe(secret);
  });

  describe('signedHeaders', () => {
    const secret = newSecret();
    const body = '{"type":"notification.completed","timestamp":"2026-11-24T00:00:00.000Z","data":{}}';
    const now = new Date('2026-11-24T01:02:03.456Z');
    const headers = signedHeaders(secret, 'msg-1', body, now);

    it('signs {id}.{timestamp}.{body} with HMAC-SHA256 under the decoded secret', () => {
      const expected = createHmac('sha256', Buffer.from(secret.slice(6), 'base64'))
        .update(`msg-1.${headers['webhook-timestamp']}.${body}`)
        .digest('base64');
      expect(headers).toEqual({
        'content-type': 'application/json',
        'webhook-id': 'msg-1',
        'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
        'webhook-signature': `v1,${expected}`,
      });
    });

    it('passes the Standard Webhooks verifier with the secret, and fails with another', () => {
      const fresh = signedHeaders(secret, 'msg-2', body, new Date());
      expect(new Webhook(secret).verify(body, fresh)).toEqual(JSON.parse(body));
      expect(() => new Webhook(newSecret()).verify(body, fresh)).toThrow();
      expect(() => new Webhook(secret).verify(body.replace('{}', '{"x":1}'), fresh)).toThrow();
    });
  });

  it('counts only 2xx as delivered', () => {
    expect([200, 204, 299].every(isDelivered)).toBe(true);
    expect([199, 301, 400, 500].some(isDelivered)).toBe(false);
  });
});
