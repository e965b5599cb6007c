import type { TraceRow } from './delivery-trace.repository';
import { operatorDelivery, toDeliveryResource } from './delivery.resource';

const row = (fields: Partial<TraceRow>): TraceRow => ({
  position: '00000000-0000-4000-8000-000000000001',
  variant: null,
  installation_id: 'inst-1',
  user_id: 'user-1',
  platform: 'ios',
  status: 'accepted',
  reason: null,
  attempts: 1,
  provider_message_id: null,
  scheduled_for: null,
  next_attempt_at: null,
  updated_at: new Date('2026-11-24T02:00:01.000Z'),
  received_at: null,
  displayed_at: null,
  opened_at: null,
  opened_action: null,
  locale: null,
  matches: true,
  scanned: 1,
  ...fields,
});
const RETRY_AT = new Date('2026-11-24T02:05:00.000Z');

describe("operatorDelivery: the dashboard's trace entry (issue 31 item 12)", () => {
  const view = operatorDelivery(['fr', 'pt-BR']);

  it("is the API's entry with the next attempt and the localization", () => {
    const entry = view(row({ status: 'pending', reason: 'ServiceUnavailable', attempts: 2, next_attempt_at: RETRY_AT, locale: 'fr_CA' }));
    expect(entry).toEqual({
      ...toDeliveryResource(row({ status: 'pending', reason: 'ServiceUnavailable', attempts: 2 })),
      next_attempt_at: RETRY_AT.toISOString(),
      localization: 'fr',
    });
  });

  it.each<[string, Partial<TraceRow>, string | null]>([
    ['a retry waiting: its next attempt', { status: 'pending', next_attempt_at: RETRY_AT }, RETRY_AT.toISOString()],
    ['a delivery waiting for its local time: that time', { status: 'scheduled', next_attempt_at: RETRY_AT }, RETRY_AT.toISOString()],
    ['a delivery that ended: none, whatever the column keeps', { status: 'failed', next_attempt_at: RETRY_AT }, null],
    ['a delivery due now: none', { status: 'pending' }, null],
  ])('next_attempt_at of %s', (_what, fields, expected) => {
    expect(view(row(fields)).next_attempt_at).toBe(expected);
  });

  it.each<[string | null, string | null]>([
    ['fr-FR', 'fr'],
    ['pt-PT', 'pt-BR'],
    ['de-DE', null],
    [null, null],
  ])('a device in %s gets %s', (locale, expected) => {
    expect(view(row({ locale })).localization).toBe(expected);
  });

  it('has no localization when the notification has none', () => {
    expect(operatorDelivery([])(row({ locale: 'fr-FR' })).localization).toBeNull();
  });
});
