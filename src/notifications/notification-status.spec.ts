import { notificationStatus, cancelable } from './notification-status';
import type { NotificationResource } from './notification.resource';

const base = {
  options: null,
  statistics: { users: 0, installations: 0, accepted: 0, received: 0, displayed: 0, opened: 0, failed: 0, skipped: 0 },
  send_at: null,
  completed_at: null,
  canceled_at: null,
} as unknown as NotificationResource;
const at = (fields: Partial<Record<string, unknown>>) => ({ ...base, ...fields });
const NOW = Date.parse('2026-11-24T10:00:00Z');

describe('notificationStatus', () => {
  it.each([
    ['canceled, even once completed', at({ canceled_at: '2026-11-24T09:00:00Z', completed_at: '2026-11-24T09:00:00Z' }), 'canceled'],
    ['completed', at({ completed_at: '2026-11-24T09:00:00Z' }), 'completed'],
    ['scheduled: send_at ahead', at({ send_at: '2026-11-24T11:00:00Z' }), 'scheduled'],
    ['sending: send_at passed', at({ send_at: '2026-11-24T09:00:00Z' }), 'sending'],
    ['scheduled: local time, nothing attempted', at({ options: { local_time: '09:00' } }), 'scheduled'],
    ['sending: local time, some attempted', at({ options: { local_time: '09:00' }, statistics: { ...base.statistics, accepted: 1 } }), 'sending'],
    ['sending: an immediate send under way', base, 'sending'],
  ])('%s', (_what, notification, expected) => {
    expect(notificationStatus(notification, NOW)).toBe(expected);
  });

  it('can be cancelled until it completes or is cancelled', () => {
    expect(cancelable(base)).toBe(true);
    expect(cancelable(at({ completed_at: '2026-11-24T09:00:00Z' }))).toBe(false);
    expect(cancelable(at({ canceled_at: '2026-11-24T09:00:00Z' }))).toBe(false);
  });
});
