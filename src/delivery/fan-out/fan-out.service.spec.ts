import { newTestService } from '../../../test/support/new-test-service';
import { CredentialsService } from '../../credentials/credentials.service';
import { DeliverJobs } from '../../queue/jobs';
import { CompletionReportService } from '../completion-report.service';
import { DeliveriesRepository } from '../deliver/deliveries.repository';
import { FairSharesService } from '../fair-shares/fair-shares.service';
import { ChunkResult } from './chunk-statement';
import { ChunkParams, FanOutRepository, NotStarted, StartedRow } from './fan-out.repository';
import { FanOutService, marketingRules } from './fan-out.service';

const ID = '00000000-0000-4000-8000-000000000001';
const APP = '00000000-0000-4000-8000-0000000000aa';

/** One notification's fan-out: its start, then its chunks in order; records what each chunk was asked. */
class InMemoryFanOuts implements Pick<FanOutRepository, 'start' | 'nextChunk' | 'finishSmallSend'> {
  started: StartedRow | NotStarted = { missing: true };
  chunks: ChunkResult[] = [];
  asked: ChunkParams[] = [];
  unfinishedSmallSends = new Set<string>();

  async start() {
    return this.started;
  }
  async nextChunk(_id: string, params: ChunkParams) {
    this.asked.push(params);
    return this.chunks.shift() ?? null;
  }
  async finishSmallSend(id: string) {
    return this.unfinishedSmallSends.delete(id);
  }
}

const startedRow = (over: Partial<StartedRow> = {}): StartedRow => ({
  variants: null,
  ab_phase: null,
  ab_due_at: null,
  app_id: APP,
  options: null,
  silent: false,
  fanout_position: 0,
  fanned_out_at: null,
  reference_at: new Date(),
  send_at: null,
  processing_started_at: new Date(),
  frequency_cap_max: null,
  frequency_cap_hours: null,
  quiet_hours_start: null,
  quiet_hours_end: null,
  ...over,
});

const chunk = (over: Partial<ChunkResult> = {}): ChunkResult => ({
  users: 0,
  installations: 2,
  batches: [{ batch: 0, due: null }],
  skipped: [],
  batchesSoFar: 1,
  canceled: false,
  finished: false,
  ...over,
});

function setup() {
  const fanOuts = new InMemoryFanOuts();
  const built = newTestService(FanOutService, { providers: [{ provide: FanOutRepository, useValue: fanOuts }] });
  built.mocks.get(CredentialsService).providersForDelivery.mockResolvedValue(['apns']);
  const deliveries = built.mocks.get(DeliveriesRepository);
  deliveries.completeIfDone.mockResolvedValue(false);
  deliveries.pendingBatches.mockResolvedValue([]);
  return { ...built, fanOuts, deliveries, deliverJobs: built.mocks.get(DeliverJobs), fairShares: built.mocks.get(FairSharesService) };
}

describe('FanOutService', () => {
  it('does nothing for a notification that is not there, and holds one until its send_at', async () => {
    const { sut, fanOuts } = setup();
    expect(await sut.fanOut(ID, false)).toEqual({ ran: false, installations: 0, batches: 0 });
    const dueAt = new Date(Date.now() + 60_000);
    fanOuts.started = { missing: false, dueAt };
    expect(await sut.fanOut(ID, false)).toEqual({ ran: false, installations: 0, batches: 0, heldUntil: dueAt });
  });

  it('fans out chunk after chunk with the configured platforms, offers each batch to its app’s lane, then completes what is done', async () => {
    const { sut, fanOuts, fairShares, deliveries, mocks } = setup();
    fanOuts.started = startedRow({ options: { platforms: ['ios', 'web'] } });
    fanOuts.chunks = [chunk(), chunk({ batches: [{ batch: 1, due: null }], batchesSoFar: 2 })];
    deliveries.completeIfDone.mockResolvedValue(true);
    expect(await sut.fanOut(ID, false)).toEqual({ ran: true, installations: 4, batches: 2 });
    expect(fanOuts.asked[0]).toMatchObject({ appId: APP, wanted: ['ios', 'web'], configured: ['apns'], silentless: [], cap: null, paceMs: null });
    expect(fairShares.offer.mock.calls).toEqual([
      [APP, 'transactional', ID, [0]],
      [APP, 'transactional', ID, [1]],
    ]);
    expect(mocks.get(CompletionReportService).completed).toHaveBeenCalledWith([ID]);
  });

  it('skips web for a silent send, and sends a Live Activity start to iOS alone', async () => {
    const { sut, fanOuts } = setup();
    fanOuts.started = startedRow({ silent: true, options: { live_activity: { attributes_type: 'T' } } as never });
    await sut.fanOut(ID, false);
    expect(fanOuts.asked[0]).toMatchObject({ wanted: ['ios'], silentless: ['web'] });
  });

  it('paces a throttled send: small batches, and a pause once the fan-out is a lead ahead of its turns', async () => {
    const { sut, fanOuts, clock } = setup();
    const start = new Date(clock.now());
    fanOuts.started = startedRow({ options: { throttle_per_minute: 600 }, processing_started_at: start });
    fanOuts.chunks = [chunk({ batchesSoFar: 100 }), chunk()];
    const result = await sut.fanOut(ID, false);
    expect(fanOuts.asked[0]).toMatchObject({ batchSize: 5, paceMs: 500 });
    expect(result.pausedUntil).toEqual(new Date(start.getTime() + 80 * 500));
    expect(fanOuts.chunks).toHaveLength(1);
  });

  it('offers again the batches still owed when a fan-out already done runs again; one due later goes as a delayed job', async () => {
    const { sut, fanOuts, deliveries, deliverJobs, fairShares } = setup();
    fanOuts.started = startedRow({ fanned_out_at: new Date(), options: { category: 'marketing' } });
    const later = new Date(Date.now() + 3_600_000);
    deliveries.pendingBatches.mockResolvedValue([
      { batch: 3, due: null },
      { batch: 4, due: later },
    ]);
    expect(await sut.fanOut(ID, false)).toMatchObject({ ran: false });
    expect(fairShares.offer).toHaveBeenCalledWith(APP, 'marketing', ID, [3]);
    expect(deliverJobs.addBatches.mock.calls[0][0]).toMatchObject([{ notificationId: ID, batch: 4 }]);
  });

  it('queues a throttled send’s batches as jobs, outside its app’s lanes', async () => {
    const { sut, fanOuts, deliverJobs, fairShares } = setup();
    fanOuts.started = startedRow({ options: { throttle_per_minute: 600 } });
    fanOuts.chunks = [chunk({ finished: true })];
    await sut.fanOut(ID, false);
    expect(fairShares.offer).toHaveBeenCalledWith(APP, 'transactional', ID, []);
    expect(deliverJobs.addBatches).toHaveBeenCalledWith([{ notificationId: ID, batch: 0, delayMs: 0 }]);
  });

  it('finishes a small send once, completing it only when this call marked it', async () => {
    const { sut, fanOuts, deliveries } = setup();
    fanOuts.unfinishedSmallSends.add(ID);
    await sut.finishSmallSend(ID);
    await sut.finishSmallSend(ID);
    expect(deliveries.completeIfDone).toHaveBeenCalledTimes(1);
  });

  it('applies the app’s frequency cap and quiet hours to marketing sends only', () => {
    const app = { frequency_cap_max: 3, frequency_cap_hours: 24, quiet_hours_start: '22:00', quiet_hours_end: '07:00' };
    expect(marketingRules(startedRow({ ...app, options: { category: 'marketing' } }))).toEqual({
      cap: { max: 3, hours: 24 },
      quiet: { start: '22:00', end: '07:00' },
    });
    expect(marketingRules(startedRow({ ...app, options: { category: 'transactional' } }))).toEqual({ cap: null, quiet: null });
  });
});
