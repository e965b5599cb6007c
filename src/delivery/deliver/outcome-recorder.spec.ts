import { CompletionReportService } from '../completion-report.service';
import { DeliveriesRepository, DeliveryRecord } from './deliveries.repository';
import { FLUSH_INTERVAL_MS, FLUSH_SIZE, MAX_UNRECORDED, OutcomeRecorder } from './outcome-recorder';
import { StoreOutage } from './store-outage';

const record = (n: number): DeliveryRecord => ({
  notificationId: 'n-1',
  notificationStartedAt: new Date(0),
  installationId: `i-${n}`,
  outcome: { status: 'accepted', reason: null, nextAttemptAt: null },
});

/** When outcomes are written: by count or by age, one write at a time, deadlocks retried. */
describe('OutcomeRecorder', () => {
  let writes: string[][];
  let pending: (() => void)[];
  let holdWrites: boolean;
  let failNext: unknown[];
  let recorder: OutcomeRecorder;
  /** What the next write answers as completed, and what was reported. */
  let completing: string[];
  let reported: string[];

  beforeEach(() => {
    jest.useFakeTimers();
    writes = [];
    pending = [];
    holdWrites = false;
    failNext = [];
    completing = [];
    reported = [];
    const repository = {
      recordOutcomes: async (records: readonly DeliveryRecord[]) => {
        if (failNext.length > 0) throw failNext.shift();
        writes.push(records.map((r) => r.installationId));
        if (holdWrites) await new Promise<void>((resolve) => pending.push(resolve));
        return completing.splice(0);
      },
    } as unknown as DeliveriesRepository;
    const completions = { completed: async (ids: readonly string[]) => void reported.push(...ids) } as unknown as CompletionReportService;
    recorder = new OutcomeRecorder(repository, new StoreOutage(), completions);
  });
  afterEach(() => jest.useRealTimers());

  const settle = () => jest.advanceTimersByTimeAsync(0);

  it('reports the notifications a write completed (their completion log line), once written', async () => {
    completing = ['n-1'];
    const written = recorder.record(record(0));
    await jest.advanceTimersByTimeAsync(FLUSH_INTERVAL_MS);
    await written;
    expect(reported).toEqual(['n-1']);
  });

  it('writes FLUSH_SIZE outcomes at once, without waiting for the interval', async () => {
    for (let n = 0; n < FLUSH_SIZE; n++) void recorder.record(record(n));
    await settle();
    expect(writes).toHaveLength(1);
    expect(writes[0]).toHaveLength(FLUSH_SIZE);
  });

  it('writes fewer once the first of them is FLUSH_INTERVAL_MS old', async () => {
    const written = recorder.record(record(1));
    await jest.advanceTimersByTimeAsync(FLUSH_INTERVAL_MS / 2);
    void recorder.record(record(2));
    await jest.advanceTimersByTimeAsync(FLUSH_INTERVAL_MS / 2 - 1);
    expect(writes).toEqual([]);
    await jest.advanceTimersByTimeAsync(1);
    expect(writes).toEqual([['i-1', 'i-2']]);
    await expect(written).resolves.toBeUndefined();
  });

  it("writes a small send's outcome at once, with what waited beside it, and the next urgent one after the write in progress", async () => {
    holdWrites = true;
    void recorder.record(record(1));
    const urgent = recorder.record(record(2), true);
    await settle();
    // Not FLUSH_INTERVAL_MS later: a small send's job holds its slot until its outcome is written.
    expect(writes).toEqual([['i-1', 'i-2']]);
    const next = recorder.record(record(3), true);
    await settle();
    expect(writes).toHaveLength(1);
    pending.shift()!();
    await expect(urgent).resolves.toBeUndefined();
    await settle();
    expect(writes).toEqual([['i-1', 'i-2'], ['i-3']]);
    pending.shift()!();
    await expect(next).resolves.toBeUndefined();
  });

  it('writes one group at a time; what came meanwhile goes in the next write', async () => {
    holdWrites = true;
    const first = recorder.record(record(1));
    await jest.advanceTimersByTimeAsync(FLUSH_INTERVAL_MS);
    const second = recorder.record(record(2));
    void recorder.record(record(3));
    await jest.advanceTimersByTimeAsync(FLUSH_INTERVAL_MS * 3);
    expect(writes).toEqual([['i-1']]);
    pending.shift()!();
    await expect(first).resolves.toBeUndefined();
    // The next group is old enough already: written as soon as the first is done.
    await settle();
    expect(writes).toEqual([['i-1'], ['i-2', 'i-3']]);
    pending.shift()!();
    await expect(second).resolves.toBeUndefined();
  });

  it('retries a deadlocked write, and fails the outcomes of a write that fails otherwise', async () => {
    failNext = [Object.assign(new Error('deadlock detected'), { code: '40P01' })];
    const retried = recorder.record(record(1));
    await jest.advanceTimersByTimeAsync(FLUSH_INTERVAL_MS);
    await expect(retried).resolves.toBeUndefined();
    expect(writes).toEqual([['i-1']]);

    failNext = [Object.assign(new Error('value too long'), { code: '22001' })];
    const failed = recorder.record(record(2));
    await jest.advanceTimersByTimeAsync(FLUSH_INTERVAL_MS);
    await expect(failed).rejects.toThrow('value too long');
  });

  it('makes sending wait while MAX_UNRECORDED outcomes are not yet written, and lets it go once a write ends', async () => {
    holdWrites = true;
    for (let n = 0; n < MAX_UNRECORDED - 1; n++) void recorder.record(record(n));
    expect(recorder.room()).toBeUndefined();
    void recorder.record(record(MAX_UNRECORDED));
    let resumed = false;
    void recorder.room()!.then(() => (resumed = true));
    await jest.advanceTimersByTimeAsync(FLUSH_INTERVAL_MS * 10);
    expect(resumed).toBe(false);
    // The first write (FLUSH_SIZE of them) ends: fewer are waiting, sending goes on.
    pending.shift()!();
    await settle();
    expect(resumed).toBe(true);
    expect(recorder.room()).toBeUndefined();
  });
});
