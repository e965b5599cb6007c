import { Logger } from '@nestjs/common';
import type { Queue } from 'bullmq';
import type { QueueInspector } from '../queue/queue-inspector';
import type { DatabasePingRepository } from './database-ping.repository';
import { DatabaseSampler } from './database.sampler';
import type { EnvironmentVariables } from '../config/env';
import type { LaneDepth, LaneDepthRepository } from './lane-depth.repository';
import { LaneDepthSampler } from './lane-depth.sampler';
import { MetricsService } from './metrics.service';
import { QueueDepthSampler } from './queue-depth.sampler';

const NOW = Date.parse('2026-01-01T12:00:00Z');

/** A queue as the sampler reads it: its counts and its oldest waiting job. */
const queue = (name: string, waiting: number, oldest?: { timestamp: number; delay: number }) =>
  ({
    name,
    getJobCounts: () => Promise.resolve({ waiting, active: 1 }),
    getWaiting: () => Promise.resolve(oldest ? [oldest] : []),
  }) as unknown as Queue;

const inspecting = (queues: Queue[]) => ({ sampled: () => queues }) as unknown as QueueInspector;
const onRedis = { QUEUE_BACKEND: 'redis' } as EnvironmentVariables;

async function values(metrics: MetricsService, name: string): Promise<Record<string, number>> {
  const metric = await metrics.registry.getSingleMetric(name)!.get();
  return Object.fromEntries(metric.values.map(({ labels, value }) => [Object.values(labels).join(','), value]));
}

describe('metrics sampled at scrape', () => {
  let metrics: MetricsService;
  beforeAll(() => Logger.overrideLogger(false));
  beforeEach(() => {
    metrics = new MetricsService();
  });
  afterEach(() => metrics.registry.clear());

  it('reports the oldest waiting job of each queue from when it became due, 0 when none waits, and Redis up', async () => {
    const queues = [
      queue('deliver', 3, { timestamp: NOW - 120_000, delay: 0 }),
      // Added 10 minutes ago with a 9-minute delay: due, and waiting, for one minute.
      queue('live-activity', 1, { timestamp: NOW - 600_000, delay: 540_000 }),
      queue('webhook', 0),
    ];
    await new QueueDepthSampler(inspecting(queues), metrics, onRedis).sample(NOW);

    expect(await values(metrics, 'pns_queue_oldest_job_age_seconds')).toEqual({ deliver: 120, 'live-activity': 60, webhook: 0 });
    expect(await values(metrics, 'pns_queue_jobs')).toMatchObject({
      'deliver,waiting': 3,
      'deliver,active': 1,
      'live-activity,waiting': 1,
      'webhook,delayed': 0,
    });
    expect(await values(metrics, 'pns_dependency_up')).toEqual({ redis: 1 });
  });

  it('empties the queue series and reports Redis down when Redis does not answer', async () => {
    await new QueueDepthSampler(inspecting([queue('deliver', 3, { timestamp: NOW - 1_000, delay: 0 })]), metrics, onRedis).sample(NOW);
    const failing = {
      name: 'deliver',
      getJobCounts: () => Promise.reject(new Error('ECONNREFUSED')),
      getWaiting: () => Promise.resolve([]),
    } as unknown as Queue;
    await new QueueDepthSampler(inspecting([failing]), metrics, onRedis).sample(NOW);

    expect(await values(metrics, 'pns_queue_jobs')).toEqual({});
    expect(await values(metrics, 'pns_queue_oldest_job_age_seconds')).toEqual({});
    expect(await values(metrics, 'pns_dependency_up')).toEqual({ redis: 0 });
  });

  it('writes no Redis series with QUEUE_BACKEND=postgres: the queue store is the database, which its own sampler reports', async () => {
    const onPostgres = { QUEUE_BACKEND: 'postgres' } as EnvironmentVariables;
    await new QueueDepthSampler(inspecting([queue('deliver', 3, { timestamp: NOW - 1_000, delay: 0 })]), metrics, onPostgres).sample(NOW);
    expect(await values(metrics, 'pns_queue_jobs')).toMatchObject({ 'deliver,waiting': 3 });
    const failing = {
      name: 'deliver',
      getJobCounts: () => Promise.reject(new Error('ECONNREFUSED')),
      getWaiting: () => Promise.resolve([]),
    } as unknown as Queue;
    await new QueueDepthSampler(inspecting([failing]), metrics, onPostgres).sample(NOW);
    expect(await values(metrics, 'pns_queue_jobs')).toEqual({});
    expect(await values(metrics, 'pns_dependency_up')).toEqual({});
  });

  describe('lanes (docs/operations.md "Fair shares")', () => {
    const A = '00000000-0000-4000-8000-00000000000a';
    const B = '00000000-0000-4000-8000-00000000000b';
    const depths: LaneDepth[] = [
      { app_id: A, lane: 'marketing', queued: 32, held: 1968, oldest_held_at: new Date(NOW - 90_000) },
      { app_id: B, lane: 'marketing', queued: 3, held: 0, oldest_held_at: null },
      { app_id: B, lane: 'transactional', queued: 2, held: 5, oldest_held_at: new Date(NOW - 4_000) },
      { app_id: A, lane: 'fanout', queued: 4, held: 996, oldest_held_at: new Date(NOW - 30_000) },
      { app_id: B, lane: 'fanout', queued: 1, held: 0, oldest_held_at: null },
    ];
    const sampler = (appLabels: boolean, read = () => Promise.resolve(depths)) =>
      new LaneDepthSampler({ depths: read } as unknown as LaneDepthRepository, metrics, { METRICS_APP_LABELS: appLabels } as EnvironmentVariables);

    it('sums every app per lane, with no app label by default', async () => {
      await sampler(false).sample(NOW);
      expect(await values(metrics, 'pns_lane_batches')).toEqual({
        'transactional,queued': 2,
        'transactional,held': 5,
        'marketing,queued': 35,
        'marketing,held': 1968,
      });
      expect(await values(metrics, 'pns_lane_oldest_held_age_seconds')).toEqual({ transactional: 4, marketing: 90 });
      // The fan-out windows (docs/decisions/0037-fan-out-windows.md): sends, not batches.
      expect(await values(metrics, 'pns_fanout_sends')).toEqual({ queued: 5, held: 996 });
      expect(await values(metrics, 'pns_fanout_oldest_held_age_seconds')).toEqual({ '': 30 });
    });

    it('adds a series per app and lane with METRICS_APP_LABELS=true', async () => {
      await sampler(true).sample(NOW);
      expect(await values(metrics, 'pns_lane_batches')).toMatchObject({
        'marketing,queued': 35,
        [`marketing,queued,${A}`]: 32,
        [`marketing,held,${A}`]: 1968,
        [`marketing,held,${B}`]: 0,
        [`transactional,held,${B}`]: 5,
      });
      expect(await values(metrics, 'pns_lane_oldest_held_age_seconds')).toMatchObject({ [`marketing,${A}`]: 90, [`marketing,${B}`]: 0 });
      expect(await values(metrics, 'pns_fanout_sends')).toMatchObject({ [`held,${A}`]: 996, [`queued,${B}`]: 1 });
      expect(await values(metrics, 'pns_fanout_oldest_held_age_seconds')).toMatchObject({ [A]: 30, [B]: 0 });
    });

    it('empties the lane series when the database does not answer', async () => {
      await sampler(true).sample(NOW);
      await sampler(true, () => Promise.reject(new Error('ECONNREFUSED'))).sample(NOW);
      expect(await values(metrics, 'pns_lane_batches')).toEqual({});
      expect(await values(metrics, 'pns_fanout_sends')).toEqual({});
    });
  });

  it('reports the database up when it answers, down when it does not', async () => {
    let answer = Promise.resolve();
    const database = { ping: () => answer } as unknown as DatabasePingRepository;
    const sampler = new DatabaseSampler(database, metrics);

    await sampler.sample();
    expect(await values(metrics, 'pns_dependency_up')).toEqual({ database: 1 });
    answer = Promise.reject(new Error('ECONNREFUSED'));
    await sampler.sample();
    expect(await values(metrics, 'pns_dependency_up')).toEqual({ database: 0 });
  });

  it.each([
    [200, '2xx'],
    [201, '2xx'],
    [410, '4xx'],
    [503, '5xx'],
    [undefined, 'none'],
    [0, 'none'],
  ])('counts a provider answer of %p as %s', async (status, statusClass) => {
    metrics.recordProviderAnswer('apns', status);
    expect(await values(metrics, 'pns_provider_responses_total')).toEqual({ [`apns,${statusClass}`]: 1 });
  });
});
