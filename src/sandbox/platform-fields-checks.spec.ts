import { bundleIdOf, widgetsProblem } from './apns-widgets';
import { validateRequest } from './fake-fcm';

/** The fakes refuse contract 28's fields where Apple and Google would (docs/api.md#widgets, docs/api.md#platform-fields). */
describe("the sandbox's checks of WidgetKit pushes and FCM's 2025 fields", () => {
  describe('APNs widgets (Apple: "Updating widgets with WidgetKit push notifications")', () => {
    it('names the bundle id only for the matching push type and topic', () => {
      expect(bundleIdOf('com.example.app.push-type.widgets', 'widgets')).toBe('com.example.app');
      expect(bundleIdOf('com.example.app', 'widgets')).toBeUndefined();
      expect(bundleIdOf('com.example.app.push-type.widgets', 'background')).toBeUndefined();
      expect(bundleIdOf('com.example.app.push-type.widgets', 'alert')).toBeUndefined();
      expect(bundleIdOf('com.example.app', 'alert')).toBe('com.example.app');
      expect(bundleIdOf('com.example.app.push-type.liveactivity', 'liveactivity')).toBe('com.example.app');
    });

    it('takes {"aps":{"content-changed":true}} and nothing else; content-changed only in a widgets push', () => {
      expect(widgetsProblem('widgets', { aps: { 'content-changed': true } })).toBeUndefined();
      for (const payload of [
        { aps: { 'content-changed': 1 } },
        { aps: { 'content-changed': true, alert: 'x' } },
        { aps: { 'content-changed': true }, data: {} },
        { aps: {} },
        { aps: 'x' },
      ]) {
        expect(widgetsProblem('widgets', payload as Record<string, unknown>)).toEqual({ status: 400, reason: 'BadPayload' });
      }
      expect(widgetsProblem('background', { aps: { 'content-changed': true, 'content-available': 1 } })).toEqual({ status: 400, reason: 'BadPayload' });
      expect(widgetsProblem('alert', { aps: { alert: 'x' } })).toBeUndefined();
    });
  });

  describe("FCM AndroidConfig and AndroidNotification (Firebase's REST reference)", () => {
    const refusal = (android: Record<string, unknown>): string | undefined => {
      try {
        validateRequest({ message: { token: 'fcm-token', data: { a: 'b' }, android } });
        return undefined;
      } catch (error) {
        return (error as Error).message;
      }
    };

    it('takes the booleans in android (proto or JSON names) and proxy in android.notification', () => {
      expect(
        refusal({ direct_boot_ok: true, bandwidth_constrained_ok: false, restricted_satellite_ok: true, notification: { proxy: 'ALLOW' } }),
      ).toBeUndefined();
      expect(refusal({ directBootOk: true, bandwidthConstrainedOk: true, notification: { proxy: 'IF_PRIORITY_LOWERED' } })).toBeUndefined();
    });

    it.each<[string, Record<string, unknown>, RegExp]>([
      ['proxy in android', { proxy: 'ALLOW' }, /Unknown name "proxy" at 'message.android'/],
      ['a boolean in android.notification', { notification: { direct_boot_ok: true } }, /Unknown name "direct_boot_ok" at 'message.android.notification'/],
      ['a string boolean', { direct_boot_ok: 'true' }, /Invalid value at 'message.android.direct_boot_ok' \(TYPE_BOOL\)/],
      ['a number boolean', { restricted_satellite_ok: 1 }, /Invalid value at 'message.android.restricted_satellite_ok' \(TYPE_BOOL\)/],
      ['a camel-case string boolean', { bandwidthConstrainedOk: 'yes' }, /Invalid value at 'message.android.bandwidth_constrained_ok' \(TYPE_BOOL\)/],
      ['a proxy in lower case', { notification: { proxy: 'allow' } }, /Invalid value at 'message.android.notification.proxy'/],
      ['an unknown android field', { satellite_ok: true }, /Unknown name "satellite_ok" at 'message.android'/],
    ])('refuses %s', (_what, android, message) => {
      expect(refusal(android)).toMatch(message);
    });
  });
});
