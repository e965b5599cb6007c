import { notificationOutcome, notificationStatus, cancelable } from './notification-status';
import type { NotificationResource } from './notification.resource';

const base = {
  options: null,
  statistics: { users: 0, installations: 0, accepted: 0, received: 0, displayed: 0, opened: 0, failed: 0, skipped: 0 },
  send_at: null,
  completed_at: null,
  canceled_at: null,
  failure_reason: null,
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

describe('notificationOutcome (issue 31 item 11)', () => {
  const done = (counts: Partial<NotificationResource['statistics']>) =>
    at({ completed_at: '2026-11-24T09:00:00Z', statistics: { ...base.statistics, ...counts } });
  it.each([
    ['none until it completes', at({ statistics: { ...base.statistics, accepted: 3 } }), null],
    ['delivered: every attempt accepted, skips aside', done({ accepted: 3, skipped: 2 }), 'delivered'],
    ['partly failed: some accepted, some failed', done({ accepted: 3, failed: 1 }), 'partly_failed'],
    ['failed: every attempt failed', done({ failed: 2, skipped: 1 }), 'failed'],
    ['nothing sent: every installation skipped', done({ skipped: 4 }), 'nothing_sent'],
    ['nothing sent: no installation', done({}), 'nothing_sent'],
    ['failed: the send failed before any delivery (issue 51 item 1)', at({ ...done({}), failure_reason: 'AudienceTimedOut' }), 'failed'],
    ['a cancelled send that completed says how far it went', at({ ...done({ accepted: 1, skipped: 5 }), canceled_at: '2026-11-24T09:00:00Z' }), 'delivered'],
  ])('%s', (_what, notification, expected) => {
    expect(notificationOutcome(notification)).toBe(expected);
  });
});
