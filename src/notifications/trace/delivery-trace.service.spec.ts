import { Test } from '@nestjs/testing';
import { NotFoundError, ValidationFailedError } from '../../common/errors';
import { EnvironmentVariables } from '../../config/env';
import { DeliveryTraceRepository, TraceQuery, TraceRow } from './delivery-trace.repository';
import { DeliveryTraceService, pageOf, providerAttempts, TRACE_SCAN_ROWS } from './delivery-trace.service';
import { encodeTraceCursor, traceCursorKey } from './trace-cursor';

const APP_KEY = 'dGVzdC1rZXktdGVzdC1rZXktdGVzdC1rZXktdGVzdC0=';
const NOTIFICATION = '0b6f2f3e-6b1c-4d3a-9a57-2f8d9c1e4b10';
const STARTED = '2026-11-24 02:00:00.123456+00';

const position = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const row = (n: number, status: TraceRow['status'] = 'accepted'): TraceRow => ({
  position: position(n),
  variant: null,
  installation_id: `inst-${n}`,
  user_id: `user-${n}`,
  platform: 'ios',
  status,
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
  scanned: n,
});

/**
 * deliveries of one notification in memory, answering TraceQuery as the statement does (the rows
 * after `after` in order, at most `scanLimit` looked at, matching ones and the last looked at).
 */
class InMemoryTrace {
  rows: TraceRow[] = [];
  started: string | null = STARTED;
  queries: TraceQuery[] = [];
  async notification(appId: string, id: string) {
    return appId === 'app' && id === NOTIFICATION ? { started_at: this.started } : undefined;
  }
  async page(q: TraceQuery): Promise<TraceRow[]> {
    this.queries.push(q);
    const looked = this.rows.filter((r) => q.after === null || r.position > q.after).slice(0, q.scanLimit);
    return looked
      .map((r, i) => ({
        ...r,
        matches: (q.status === null || r.status === q.status) && (q.reason == null || r.reason === q.reason),
        scanned: i + 1,
      }))
      .filter((r) => r.matches || r.scanned === q.scanLimit)
      .slice(0, q.rows);
  }
}

describe('delivery trace (docs/api.md#delivery-trace)', () => {
  let service: DeliveryTraceService;
  let trace: InMemoryTrace;

  beforeEach(async () => {
    trace = new InMemoryTrace();
    const module = await Test.createTestingModule({
      providers: [DeliveryTraceService, { provide: DeliveryTraceRepository, useValue: trace }, { provide: EnvironmentVariables, useValue: { APP_KEY } }],
    }).compile();
    service = module.get(DeliveryTraceService);
  });

  /** Every entry of the trace, page after page, and how many pages it took. */
  const walk = async (limit: number, status: TraceRow['status'] | null = null) => {
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await service.page('app', NOTIFICATION, limit, status, cursor);
      expect(page.data.length).toBeLessThanOrEqual(limit);
      seen.push(...page.data.map((d) => d.installation_id));
      cursor = page.meta.next_cursor ?? undefined;
      pages++;
    } while (cursor);
    return { seen, pages };
  };

  it('pages through every delivery once, in order, the last page with a null cursor', async () => {
    trace.rows = Array.from({ length: 25 }, (_, i) => row(i + 1));
    const { seen, pages } = await walk(10);
    expect(seen).toEqual(trace.rows.map((r) => r.installation_id));
    expect(pages).toBe(3);
    // Exactly `limit` deliveries left: one page, no empty page after it.
    trace.rows = trace.rows.slice(0, 10);
    expect(await walk(10)).toEqual({ seen: trace.rows.map((r) => r.installation_id), pages: 1 });
    expect(trace.queries.every((q) => q.rows === 11 && q.scanLimit === TRACE_SCAN_ROWS && q.startedAt === STARTED)).toBe(true);
  });

  it('with a status, a page looks at most at TRACE_SCAN_ROWS deliveries, and goes on after the last one it looked at', async () => {
    const total = TRACE_SCAN_ROWS * 2 + 500;
    trace.rows = Array.from({ length: total }, (_, i) => row(i + 1, i + 1 === 3 || i + 1 === TRACE_SCAN_ROWS + 7 ? 'failed' : 'accepted'));
    const first = await service.page('app', NOTIFICATION, 100, 'failed');
    expect(first.data.map((d) => d.installation_id)).toEqual(['inst-3']);
    expect(first.meta.next_cursor).not.toBeNull();
    const { seen, pages } = await walk(100, 'failed');
    expect(seen).toEqual(['inst-3', `inst-${TRACE_SCAN_ROWS + 7}`]);
    expect(pages).toBe(3);
    // A status no delivery has: empty pages until the end, each bounded.
    expect(await walk(100, 'scheduled')).toEqual({ seen: [], pages: 3 });
  });

  it('filters by reason too (the operator dashboard), alone or with the status, passing it to the statement', async () => {
    trace.rows = [
      row(1),
      { ...row(2, 'failed'), reason: 'BadDeviceToken' },
      { ...row(3, 'skipped'), reason: 'NoCredentials' },
      { ...row(4, 'failed'), reason: 'Unregistered' },
    ];
    const ids = async (status: TraceRow['status'] | null, reason: string | null) =>
      (await service.page('app', NOTIFICATION, 100, status, undefined, reason)).data.map((d) => d.installation_id);
    expect(await ids(null, 'NoCredentials')).toEqual(['inst-3']);
    expect(await ids('failed', 'Unregistered')).toEqual(['inst-4']);
    expect(await ids('skipped', 'Unregistered')).toEqual([]);
    expect(trace.queries.at(-1)).toMatchObject({ status: 'skipped', reason: 'Unregistered' });
  });

  it('pageOf: more matches than the limit end the page at the last entry; a scan cut short at its bound goes on after its last row', () => {
    const rows = [row(1), row(2), row(3)];
    expect(pageOf(rows, 2, 10)).toEqual({ entries: rows.slice(0, 2), next: position(2) });
    expect(pageOf(rows, 3, 10)).toEqual({ entries: rows, next: null });
    const cut = [row(1), { ...row(10, 'accepted'), matches: false, scanned: 10 }];
    expect(pageOf(cut, 5, 10)).toEqual({ entries: [row(1)], next: position(10) });
    expect(pageOf([], 5, 10)).toEqual({ entries: [], next: null });
  });

  it.each<[TraceRow['status'], string | null, number, number]>([
    ['accepted', null, 1, 1],
    ['failed', 'BadDeviceToken', 3, 3],
    ['pending', 'ServiceUnavailable', 2, 2],
    ['sending', null, 1, 1],
    // Skipped at the fan-out: never claimed.
    ['skipped', 'PermissionDenied', 0, 0],
    // Skipped at its claim (the claim counted, no provider asked), after one provider attempt or none.
    ['skipped', 'Deleted', 2, 1],
    ['skipped', 'NoToken', 1, 0],
    ['skipped', 'Invalidated', 1, 0],
    // Cancelled while waiting for its retry: both claims asked the provider.
    ['skipped', 'Canceled', 2, 2],
  ])('attempts: %s (%s) after %d claims is %d provider attempts', (status, reason, claims, attempts) => {
    expect(providerAttempts({ status, reason, attempts: claims })).toBe(attempts);
  });

  it('maps every field, times as ISO 8601 with milliseconds', async () => {
    trace.rows = [
      {
        ...row(1, 'pending'),
        reason: 'ServiceUnavailable',
        attempts: 2,
        scheduled_for: new Date('2026-11-25T09:00:00.000Z'),
        received_at: new Date('2026-11-24T02:00:02.000Z'),
        displayed_at: new Date('2026-11-24T02:00:03.000Z'),
        opened_at: new Date('2026-11-24T02:00:04.000Z'),
        opened_action: 'track',
      },
    ];
    expect((await service.page('app', NOTIFICATION, 100, null)).data).toEqual([
      {
        installation_id: 'inst-1',
        user_id: 'user-1',
        platform: 'ios',
        status: 'pending',
        reason: 'ServiceUnavailable',
        attempts: 2,
        provider_message_id: null,
        scheduled_for: '2026-11-25T09:00:00.000Z',
        updated_at: '2026-11-24T02:00:01.000Z',
        received_at: '2026-11-24T02:00:02.000Z',
        displayed_at: '2026-11-24T02:00:03.000Z',
        opened_at: '2026-11-24T02:00:04.000Z',
        opened_action: 'track',
        variant: null,
      },
    ]);
  });

  it("404 for another app's notification, an unknown one or an id that is not a UUID", async () => {
    await expect(service.page('other-app', NOTIFICATION, 100, null)).rejects.toThrow(NotFoundError);
    await expect(service.page('app', '0b6f2f3e-6b1c-4d3a-9a57-2f8d9c1e4b11', 100, null)).rejects.toThrow(NotFoundError);
    await expect(service.page('app', 'not-a-uuid', 100, null)).rejects.toThrow(NotFoundError);
  });

  it("422 on cursor for a forged cursor or another notification's, before looking the notification up", async () => {
    const key = traceCursorKey(APP_KEY);
    for (const cursor of ['forged', encodeTraceCursor(key, '0b6f2f3e-6b1c-4d3a-9a57-2f8d9c1e4b11', position(1))]) {
      const error = await service.page('app', NOTIFICATION, 100, null, cursor).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ValidationFailedError);
      expect((error as ValidationFailedError).errors).toEqual({ cursor: ['The cursor field is invalid.'] });
    }
    expect(trace.queries).toEqual([]);
  });

  it('is empty, without asking for deliveries, before the fan-out began', async () => {
    trace.started = null;
    expect(await service.page('app', NOTIFICATION, 100, null)).toEqual({ data: [], meta: { next_cursor: null } });
    expect(trace.queries).toEqual([]);
  });
});
