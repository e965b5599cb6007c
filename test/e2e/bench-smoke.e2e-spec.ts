import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { QUICK, runBench, type BenchResults } from '../../bench/harness';
import { PARSE_NODE_22 } from '../../bench/parse';
import { table, writeResults } from '../../bench/report';
import { assertBuilt, BUILT_MAIN } from '../support/processes';

/**
 * The benchmark harness (bench/, `npm run bench`) at a tiny size, so it cannot rot unnoticed:
 * every phase runs against the built service and the fakes, and the report is written. Timings are
 * not asserted; only that every send was delivered and every figure is a number.
 *
 * Parse Server, the bench's peer service, is left out unless BENCH_SMOKE_PARSE=1: its pushes (here
 * one configuration, both kinds, on both Nodes: four) each start a Parse Server process, which
 * costs tens of seconds (bench/README.md). The bench itself (`npm run bench`) always runs it.
 */
const WITH_PARSE = process.env.BENCH_SMOKE_PARSE === '1';
const LATENCY_TARGETS = ['idle', 'during a broadcast'].flatMap((when) => ['p50', 'p99'].map((q) => `single-device ${q} / floor, ${when}`));
const PARSE_TARGETS = ['ours iOS broadcast / Parse all iOS', 'ours iOS user ids / Parse userId $in'].flatMap((pair) =>
  ['deliveries/s', 'CPU per delivery', 'peak RSS'].map((figure) => `${pair} ${figure}`),
);

describe('npm run bench, at a tiny size', () => {
  let dir: string;
  let results: BenchResults;

  beforeAll(async () => {
    assertBuilt();
    dir = mkdtempSync(join(tmpdir(), 'pns-bench-smoke-'));
    results = await runBench({
      ...QUICK,
      installations: 200,
      users: 100,
      requestUsers: 40,
      apiSeconds: 1,
      // A count, not a duration: a busy machine once answered no PATCH within the second.
      apiRequests: 128,
      memoryInstallations: 100,
      memoryRequestUsers: 25,
      timeoutMs: 30_000,
      parse: WITH_PARSE,
      parseTimeoutMs: 30_000,
      latencySamples: 5,
      pacedUsers: 50,
      parseConfigs: ['raised'],
      inboxUsers: 100,
      inboxStreams: 20,
      log: () => undefined,
    });
    // Parse Server's four pushes each start a process of their own (a few seconds each); 85 s on
    // this machine alone, past 150 s beside another bench.
  }, 300_000);
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('delivers every send and measures the ceiling and the peer', () => {
    const { ours, oursIos, ceiling, peer } = results.delivery;
    expect(ours).toMatchObject({ installations: 200, accepted: 200, failed: 0, skipped: 0, requests: 3 });
    expect(oursIos).toMatchObject({ installations: 200, accepted: 100, failed: 0, skipped: 100 });
    // One broadcast reaches the same installations: they are every installation of the app.
    expect(results.delivery.oursBroadcast).toMatchObject({ installations: 200, accepted: 200, failed: 0, skipped: 0, requests: 1 });
    expect(results.delivery.oursBroadcast.perProvider).toEqual({ apns: 100, fcm: 50, web_push: 50, hms: 0 });
    // The broadcast restricted to iOS (what Parse's platform-wide push does): the iOS half.
    expect(results.delivery.oursBroadcastIos).toMatchObject({ installations: 200, accepted: 100, failed: 0, skipped: 100, requests: 1 });
    expect(results.delivery.oursBroadcastIos.perProvider).toEqual({ apns: 100, fcm: 0, web_push: 0, hms: 0 });
    expect(ours.perProvider).toEqual({ apns: 100, fcm: 50, web_push: 50, hms: 0 });
    expect(ceiling).toMatchObject({ requests: 200, accepted: 200 });
    expect(peer).toMatchObject({ requests: 100, accepted: 100 });
    for (const value of [ours.deliveriesPerSecond, ours.fanoutSeconds, ours.providerSeconds, results.delivery.oursOverCeiling, results.delivery.oursOverPeer]) {
      expect(Number.isFinite(value) && value > 0).toBe(true);
    }
  });

  it('measures a throttled send: the most messages in any sliding second against the rate plus two batches', () => {
    // 50 users of two installations each, at 12,000 a minute: 200 a second, batches of 100.
    expect(results.paced).toMatchObject({ perMinute: 12_000, installations: 100, accepted: 100, batch: 100, bound: 400 });
    expect(results.paced!.mostInASecond).toBeGreaterThan(0);
    expect(table(results)).toContain('Throttled send, 12,000 a minute');
  });

  it('times single-device sends idle and during a broadcast to the whole app, ours and the floor in turns', () => {
    expect(results.latency).toMatchObject({ samples: 5, broadcastInstallations: 300 });
    const { idleMs, busyMs, floorIdleMs, floorBusyMs } = results.latency!;
    for (const q of [idleMs, busyMs, floorIdleMs!, floorBusyMs!]) {
      expect(q.p50).toBeGreaterThan(0);
      expect(q.max).toBeGreaterThanOrEqual(q.p99);
    }
    expect(results.targets.map((t) => t.name)).toEqual(expect.arrayContaining(LATENCY_TARGETS));
  });

  it('says whose CPU each delivery and each request cost', () => {
    // /proc counts CPU in 10 ms ticks, so at this size a side may read 0: only the shape is checked.
    const { ours, oursIos, ceiling, peer } = results.delivery;
    const { patch, post, rawUpdate } = results.api;
    for (const cpu of [
      ours.cpuMicrosPerDelivery,
      oursIos.cpuMicrosPerDelivery,
      patch.cpuMicrosPerRequest,
      post.cpuMicrosPerRequest,
      rawUpdate.cpuMicrosPerStatement,
    ]) {
      for (const side of ['service', 'harness', 'postgres', 'redis'] as const) expect(cpu[side]).toBeGreaterThanOrEqual(0);
    }
    // The raw UPDATE loop runs in the harness: no service process is involved.
    expect(rawUpdate.cpuMicrosPerStatement.service).toBe(0);
    for (const client of [ceiling, peer]) expect(client.fakesCpuSeconds).toBeGreaterThanOrEqual(0);
  });

  it('measures the API and its raw UPDATE baseline', () => {
    const { patch, patchProperties, post, rawUpdate } = results.api;
    expect(patch.requests).toBe(128);
    expect(patchProperties.requests).toBe(128);
    expect(post.requests).toBe(128);
    expect(rawUpdate.statements).toBe(patch.requests);
    expect(patch.errors + patchProperties.errors + post.errors + rawUpdate.errors).toBe(0);
    expect(Number.isFinite(results.api.patchOverRaw)).toBe(true);
  });

  it('samples the worker memory through a send', () => {
    expect(results.memory).toMatchObject({ installations: 100, requests: 4 });
    expect(results.memory!.delivery.accepted).toBe(100);
    expect(results.memory!.peakRssMb).toBeGreaterThan(10);
    // Then as one broadcast: the memory run's installations and the delivery run's, the whole app.
    expect(results.memoryBroadcast).toMatchObject({ installations: 300, requests: 1 });
    expect(results.memoryBroadcast!.delivery.accepted).toBe(300);
    // And as one filter send matching every installation: the whole app again.
    expect(results.memoryFilter).toMatchObject({ installations: 300, requests: 1 });
    expect(results.memoryFilter!.delivery.accepted).toBe(300);
  });

  it("stores the inbox run's messages beside its push, samples the worker and holds its streams (bench/inbox.ts)", () => {
    const inbox = results.inbox!;
    expect(inbox).toMatchObject({ users: 100, pushOnly: null, pushAndInbox: { accepted: 100, inboxStored: 100 }, streams: { count: 20 } });
    expect(inbox.pushAndInbox.workerPeakRssMb).toBeGreaterThanOrEqual(inbox.pushAndInbox.workerStartRssMb);
    expect(inbox.pushAndInbox.inboxOverProviders).toBeGreaterThan(0);
  });

  (WITH_PARSE ? it : it.skip)('runs Parse Server as a peer service: each push reaches every iOS installation at the fake', () => {
    const parse = results.parse!;
    expect(parse.versions.parseServer).toMatch(/^9\./);
    expect(parse).toMatchObject({ installations: 100, users: 50 });
    expect(parse.nodes).toEqual([process.versions.node, PARSE_NODE_22]);
    // The two Nodes alternate push by push.
    expect(parse.runs.map((run) => `${run.node} ${run.config} ${run.target}`)).toEqual(
      ['users', 'platform'].flatMap((target) => parse.nodes.map((node) => `${node} raised ${target}`)),
    );
    for (const run of parse.runs) {
      // Counted at the fake, never taken from Parse's push status.
      expect(run).toMatchObject({ expected: 100, received: 100, complete: true });
      expect(run.stoppedBecause).toBeUndefined();
      expect(run.peakRssMb).toBeGreaterThan(10);
      expect(Number.isFinite(run.deliveriesPerSecond) && run.deliveriesPerSecond > 0).toBe(true);
    }
    // Like for like: our iOS broadcast against its platform-wide push, our iOS user-id send against
    // its userId $in push, each against the fastest of its runs of that kind.
    expect(parse.comparisons.map((c) => [c.target, c.ours])).toEqual([
      ['platform', 'oursBroadcastIos'],
      ['users', 'oursIos'],
    ]);
    for (const c of parse.comparisons) {
      const fastest = Math.max(...parse.runs.filter((run) => run.target === c.target).map((run) => run.deliveriesPerSecond));
      expect(c.peer?.deliveriesPerSecond).toBe(fastest);
      expect(c.otherNode?.node).not.toBe(c.peer?.node);
      for (const value of [c.deliveriesPerSecond, c.peakRss]) expect(Number.isFinite(value) && value! > 0).toBe(true);
      expect(c.cpuPerDelivery).toBeGreaterThanOrEqual(0);
    }
  });

  it('keeps Parse Server a bench peer: nothing the api or the worker runs requires a parse package', () => {
    // parse-server is a dev dependency (not in a production install), so a require would break there.
    const built = dirname(BUILT_MAIN);
    const files = readdirSync(built, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.js'));
    expect(files.length).toBeGreaterThan(50);
    const requiring = files.filter((f) => /require\("(parse-server|parse|@parse\/[^"]+)"\)/.test(readFileSync(join(built, f), 'utf8')));
    expect(requiring).toEqual([]);
  });

  it('states the targets as ratios over a baseline of the same run, then memory, then the inbox', () => {
    const names = results.targets.map((t) => t.name);
    expect(names).toEqual([
      ...(WITH_PARSE ? PARSE_TARGETS : []),
      'CPU per APNs delivery / bare client',
      'CPU per delivery, one-variable template / plain',
      'paced send, most in a sliding second / bound',
      ...LATENCY_TARGETS,
      'fan-out peak RSS (MB)',
      'fan-out RSS growth (MB/100k)',
      'broadcast peak RSS (MB)',
      'broadcast RSS growth (MB/100k)',
      'filter send peak RSS (MB)',
      'filter send RSS growth (MB/100k)',
      // The inbox's RSS growth is a target only from 500,000 users (INBOX_GROWTH_USERS).
      'inbox stored/s / deliveries/s, same send',
      '20 inbox streams, api RSS (MB)',
    ]);
    for (const t of results.targets.filter((t) => t.name.includes(' / '))) expect(t.detail).toMatch(/\d/);
    // bench/README.md "Targets".
    const threshold = (name: string) => results.targets.find((t) => t.name === name)?.target;
    expect(
      ['CPU per APNs delivery / bare client', 'single-device p99 / floor, idle', 'fan-out peak RSS (MB)', 'broadcast RSS growth (MB/100k)'].map(threshold),
    ).toEqual(['<= 1.3', '<= 2.0', '<= 200', '<= 0.5']);
  });

  it('prints the table and writes the JSON', () => {
    const text = table(results);
    // A missed target is printed, never thrown: the run still succeeds.
    expect(text).toContain('MISSED is information, not a failure');
    const parseLabels = WITH_PARSE ? ['Parse Server 9.', 'Like for like', 'ours / Parse'] : ['Parse Server: not run (--no-parse)'];
    for (const label of [
      'ours / ceiling',
      'ours / peer',
      'one broadcast',
      'Single-device send, POST to the fake APNs',
      'iOS broadcast',
      'PATCH / raw UPDATE',
      'CPU per message',
      'CPU per request',
      'worker peak RSS',
      'as one broadcast',
      'as one filter send',
      ...parseLabels,
      'Targets',
    ]) {
      expect(text).toContain(label);
    }
    const file = writeResults(results, dir);
    expect(readdirSync(dir)).toEqual([file.split('/').pop()]);
    expect(JSON.parse(readFileSync(file, 'utf8')).delivery.ours.accepted).toBe(200);
  });
});
