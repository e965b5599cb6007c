import { execFileSync } from 'node:child_process';
import { cpus, totalmem } from 'node:os';
import { benchPatch, benchPost, benchRawUpdate, CONNECTIONS, type HttpResult, type RawResult } from './api';
import { measureClient, measureDelivery, type DeliveryResult, type RateResult } from './delivery';
import { seedInstallations, type Seeded } from './lib/seed';
import { API_POOL_SIZE, deployedNodeOptions, rssBytes, startStack, type Stack } from './lib/stack';

export interface BenchOptions {
  /** Installations of the delivery benchmark, and their users. */
  installations: number;
  users: number;
  /** Users per POST /notifications. */
  requestUsers: number;
  /** Seconds of each autocannon run. */
  apiSeconds: number;
  /**
   * When set, each autocannon run makes exactly this many requests instead of running for
   * `apiSeconds`: the smoke test's figures then do not depend on how fast a busy machine is.
   */
  apiRequests?: number;
  /** Installations (one per user) of the fan-out memory benchmark; 0 skips it. */
  memoryInstallations: number;
  memoryRequestUsers: number;
  ceilingSessions: number;
  ceilingStreams: number;
  /** Deadline of each send. */
  timeoutMs: number;
  log: (line: string) => void;
}

export const FULL: Omit<BenchOptions, 'log'> = {
  installations: 200_000,
  users: 100_000,
  requestUsers: 10_000,
  apiSeconds: 20,
  memoryInstallations: 1_000_000,
  memoryRequestUsers: 10_000,
  ceilingSessions: 4,
  ceilingStreams: 250,
  timeoutMs: 30 * 60_000,
};

/** Under two minutes on a 2-core machine; no memory run (it needs the million rows). */
export const QUICK: Omit<BenchOptions, 'log'> = {
  ...FULL,
  installations: 20_000,
  users: 10_000,
  requestUsers: 2_000,
  apiSeconds: 5,
  memoryInstallations: 0,
  timeoutMs: 5 * 60_000,
};

export interface MemoryResult {
  installations: number;
  requests: number;
  baselineRssMb: number;
  peakRssMb: number;
  /** Least-squares slope of RSS over installations delivered (past the first 10%), per 100,000. */
  growthMbPer100k: number;
  finalRssMb: number;
  delivery: DeliveryResult;
  samples: { t: number; processed: number; rssMb: number }[];
}

export interface Target {
  name: string;
  target: string;
  value: number;
  met: boolean;
}

export interface BenchResults {
  date: string;
  commit: string;
  machine: { cpu: string; cores: number; memoryGb: number; node: string; postgres: string; redis: string; workerNodeOptions: string };
  options: Omit<BenchOptions, 'log'>;
  delivery: {
    /** The send the issue asks for: every installation, all three providers. */
    ours: DeliveryResult;
    /** The same users again with options.platforms = ["ios"]: APNs only, like the ceiling and the peer. */
    oursIos: DeliveryResult;
    /** The same installations as one broadcast (`recipients.all`, docs/api.md 10): the fan-out walks them in PostgreSQL. */
    oursBroadcast: DeliveryResult;
    ceiling: RateResult;
    peer: RateResult;
    oursOverCeiling: number;
    oursOverPeer: number;
    oursIosOverCeiling: number;
    oursIosOverPeer: number;
  };
  api: {
    connections: number;
    poolSize: number;
    patch: HttpResult;
    rawUpdate: RawResult;
    post: HttpResult;
    patchOverRaw: number;
  };
  memory: MemoryResult | null;
  /** The memory run's installations again, as one broadcast (with the delivery run's installations: the whole app). */
  memoryBroadcast: MemoryResult | null;
  targets: Target[];
}

function git(...args: string[]): string {
  try {
    return execFileSync('git', args, { encoding: 'utf8' }).trim();
  } catch {
    return 'unknown';
  }
}

async function machine(stack: Stack): Promise<BenchResults['machine']> {
  const { rows } = await stack.db.query<{ server_version: string }>('SHOW server_version');
  let redis = 'unknown';
  try {
    const { Redis } = await import('ioredis');
    const client = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', { lazyConnect: true, maxRetriesPerRequest: 1 });
    await client.connect();
    redis = /redis_version:(\S+)/.exec(await client.info('server'))?.[1] ?? 'unknown';
    client.disconnect();
  } catch {
    // only informative
  }
  return {
    cpu: cpus()[0]?.model ?? 'unknown',
    cores: cpus().length,
    memoryGb: Math.round(totalmem() / 2 ** 30),
    node: process.version,
    postgres: rows[0].server_version,
    redis,
    workerNodeOptions: deployedNodeOptions('worker'),
  };
}

/** Least-squares slope of y over x. */
function slope(points: { x: number; y: number }[]): number {
  if (points.length < 2) return 0;
  const mx = points.reduce((s, p) => s + p.x, 0) / points.length;
  const my = points.reduce((s, p) => s + p.y, 0) / points.length;
  const num = points.reduce((s, p) => s + (p.x - mx) * (p.y - my), 0);
  const den = points.reduce((s, p) => s + (p.x - mx) ** 2, 0);
  return den === 0 ? 0 : num / den;
}

async function memoryRun(stack: Stack, options: BenchOptions, seeded: Seeded, broadcast = false): Promise<MemoryResult> {
  const count = options.memoryInstallations;
  // A fresh worker, so its baseline holds nothing from the earlier runs, and nothing left for it to
  // do but this send: the API benchmark's notifications were accepted with no worker running.
  await stack.stopWorker();
  await stack.discardNotifications();
  const worker = await stack.startWorker();
  // Let startup garbage settle before the baseline is read (short for tiny runs).
  await new Promise((resolve) => setTimeout(resolve, Math.min(2000, count / 50)));
  const baseline = rssBytes(worker.pid) / 2 ** 20;
  const samples: MemoryResult['samples'] = [];
  const started = Date.now();
  options.log(
    broadcast
      ? `memory: one broadcast to every installation of the app (worker RSS ${baseline.toFixed(0)} MB)`
      : `memory: sending to ${count} users in ${Math.ceil(count / options.memoryRequestUsers)} requests (worker RSS ${baseline.toFixed(0)} MB)`,
  );
  const delivery = await measureDelivery(stack, seeded, {
    requestUsers: options.memoryRequestUsers,
    timeoutMs: options.timeoutMs,
    broadcast,
    onSample: (processed) => {
      samples.push({ t: (Date.now() - started) / 1000, processed, rssMb: rssBytes(worker.pid) / 2 ** 20 });
      if (samples.length % 20 === 0) options.log(`memory: ${processed} delivered, worker RSS ${samples[samples.length - 1].rssMb.toFixed(0)} MB`);
    },
  });
  const finalRss = rssBytes(worker.pid) / 2 ** 20;
  const steady = samples.filter((s) => s.processed >= delivery.installations * 0.1).map((s) => ({ x: s.processed, y: s.rssMb }));
  return {
    installations: delivery.installations,
    requests: delivery.requests,
    baselineRssMb: baseline,
    peakRssMb: Math.max(delivery.workerPeakRssMb, ...samples.map((s) => s.rssMb)),
    growthMbPer100k: slope(steady) * 100_000,
    finalRssMb: finalRss,
    delivery,
    samples,
  };
}

export async function runBench(options: BenchOptions): Promise<BenchResults> {
  const { log } = options;
  log('starting fake providers, database, api and worker');
  const stack = await startStack('run');
  try {
    log(`delivery: seeding ${options.installations} installations for ${options.users} users`);
    const seeded = await seedInstallations(stack, options.installations, options.users);
    await stack.db.query('VACUUM ANALYZE installations');
    await stack.startApi();
    await stack.startWorker();

    log(`delivery: sending to ${options.users} users in requests of ${options.requestUsers}`);
    const ours = await measureDelivery(stack, seeded, { requestUsers: options.requestUsers, timeoutMs: options.timeoutMs });
    log(`delivery: ${Math.round(ours.deliveriesPerSecond)} deliveries/s; again, iOS only`);
    const oursIos = await measureDelivery(stack, seeded, {
      requestUsers: options.requestUsers,
      timeoutMs: options.timeoutMs,
      body: { options: { platforms: ['ios'] } },
    });
    log(`delivery: iOS only ${Math.round(oursIos.deliveriesPerSecond)} deliveries/s; again, as one broadcast`);
    const oursBroadcast = await measureDelivery(stack, seeded, { requestUsers: options.requestUsers, timeoutMs: options.timeoutMs, broadcast: true });
    log(`delivery: broadcast ${Math.round(oursBroadcast.deliveriesPerSecond)} deliveries/s; ceiling: ${options.installations} requests over bare HTTP/2`);
    const clientParams = { sessions: options.ceilingSessions, streams: options.ceilingStreams, chunkSize: 1000 };
    const ceiling = await measureClient(stack, 'ceiling', seeded.iosTokens, { ...clientParams, count: options.installations });
    log(`ceiling: ${Math.round(ceiling.perSecond)} requests/s; peer: @parse/node-apn to ${seeded.iosTokens.length} tokens`);
    const peer = await measureClient(stack, 'peer', seeded.iosTokens, { ...clientParams, count: seeded.iosTokens.length });
    log(`peer: ${Math.round(peer.perSecond)} requests/s`);

    // The API alone: the worker would compete for the same two cores with what is measured.
    await stack.stopWorker();
    const length = options.apiRequests ? { requests: options.apiRequests } : { seconds: options.apiSeconds };
    log(`api: PATCH installations, ${CONNECTIONS} connections, ${options.apiRequests ? `${options.apiRequests} requests` : `${options.apiSeconds} s`}`);
    const patch = await benchPatch(stack, seeded, length);
    log(`api: ${patch.requests} PATCHes at ${Math.round(patch.perSecond)}/s; the same number of raw UPDATEs`);
    const rawUpdate = await benchRawUpdate(stack, seeded, Math.max(1, patch.requests));
    log(`api: POST notifications (10 recipients)`);
    const post = await benchPost(stack, seeded, length);

    // Last: a million fresh rows keep PostgreSQL busy (autovacuum, checkpoints) for minutes after,
    // which the API figures, measured before, must not include.
    let memory: MemoryResult | null = null;
    let memoryBroadcast: MemoryResult | null = null;
    if (options.memoryInstallations > 0) {
      const count = options.memoryInstallations;
      log(`memory: seeding ${count} installations for ${count} users`);
      const memorySeeded = await seedInstallations(stack, count, count, 'm');
      await stack.db.query('VACUUM ANALYZE installations');
      memory = await memoryRun(stack, options, memorySeeded);
      memoryBroadcast = await memoryRun(stack, options, memorySeeded, true);
    }

    const results: BenchResults = {
      date: new Date().toISOString(),
      commit: git('rev-parse', '--short', 'HEAD') + (git('status', '--porcelain', '--untracked-files=no', 'src') ? '-dirty' : ''),
      machine: await machine(stack),
      options: { ...options, log: undefined } as unknown as Omit<BenchOptions, 'log'>,
      delivery: {
        ours,
        oursIos,
        oursBroadcast,
        ceiling,
        peer,
        oursOverCeiling: ours.deliveriesPerSecond / ceiling.perSecond,
        oursOverPeer: ours.deliveriesPerSecond / peer.perSecond,
        oursIosOverCeiling: oursIos.deliveriesPerSecond / ceiling.perSecond,
        oursIosOverPeer: oursIos.deliveriesPerSecond / peer.perSecond,
      },
      api: { connections: CONNECTIONS, poolSize: API_POOL_SIZE, patch, rawUpdate, post, patchOverRaw: patch.perSecond / rawUpdate.perSecond },
      memory,
      memoryBroadcast,
      targets: [],
    };
    results.targets = targets(results);
    return results;
  } finally {
    await stack.stop();
  }
}

export function targets(r: BenchResults): Target[] {
  const t: Target[] = [
    { name: 'deliveries/s end to end', target: '>= 10000', value: r.delivery.ours.deliveriesPerSecond, met: r.delivery.ours.deliveriesPerSecond >= 10_000 },
    { name: 'ours / ceiling', target: '>= 0.6', value: r.delivery.oursOverCeiling, met: r.delivery.oursOverCeiling >= 0.6 },
    { name: 'ours / peer', target: '>= 1.0', value: r.delivery.oursOverPeer, met: r.delivery.oursOverPeer >= 1.0 },
    { name: 'ours iOS only / ceiling', target: '>= 0.6', value: r.delivery.oursIosOverCeiling, met: r.delivery.oursIosOverCeiling >= 0.6 },
    { name: 'ours iOS only / peer', target: '>= 1.0', value: r.delivery.oursIosOverPeer, met: r.delivery.oursIosOverPeer >= 1.0 },
    { name: 'PATCH / raw UPDATE', target: '>= 0.5', value: r.api.patchOverRaw, met: r.api.patchOverRaw >= 0.5 },
    { name: 'POST p99 (ms)', target: '< 25', value: r.api.post.p99Ms, met: r.api.post.p99Ms < 25 },
    {
      name: 'API errors',
      target: '= 0',
      value: r.api.patch.errors + r.api.post.errors + r.api.rawUpdate.errors,
      met: r.api.patch.errors + r.api.post.errors + r.api.rawUpdate.errors === 0,
    },
  ];
  if (r.memory) {
    t.push(
      { name: 'fan-out peak RSS (MB)', target: '< 300', value: r.memory.peakRssMb, met: r.memory.peakRssMb < 300 },
      { name: 'RSS growth (MB/100k)', target: '< 5', value: r.memory.growthMbPer100k, met: r.memory.growthMbPer100k < 5 },
    );
  }
  if (r.memoryBroadcast) {
    t.push(
      { name: 'broadcast peak RSS (MB)', target: '< 300', value: r.memoryBroadcast.peakRssMb, met: r.memoryBroadcast.peakRssMb < 300 },
      { name: 'broadcast RSS growth (MB/100k)', target: '< 5', value: r.memoryBroadcast.growthMbPer100k, met: r.memoryBroadcast.growthMbPer100k < 5 },
    );
  }
  return t;
}
