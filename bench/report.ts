import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { serviceCpu, type BenchResults } from './harness';
import type { ParseConfig, ParseRun, ParseTarget } from './parse';
import type { RateResult } from './clients';
import { perUnit, type CpuUse } from './lib/cpu';

const int = (n: number) => Math.round(n).toLocaleString('en-US');
const fixed = (n: number, digits = 2) => n.toFixed(digits);
const row = (label: string, ...cells: string[]) => `  ${label.padEnd(34)}${cells.map((c) => c.padStart(14)).join('')}`;

const cpuRow = (label: string, cpu: CpuUse) => row(label, int(cpu.service), int(cpu.harness), int(cpu.postgres), int(cpu.redis));
/** The ceiling's or the peer's client process, and the fakes it sent to (no database, no Redis). */
const clientCpuRow = (label: string, r: RateResult) => {
  const { service, harness } = perUnit({ service: r.cpuSeconds, harness: r.fakesCpuSeconds ?? 0, postgres: 0, redis: 0 }, r.requests);
  return row(label, int(service), int(harness));
};

/** The table printed on stdout (its main rows pasted into bench/README.md "Latest full run"). */
export function table(r: BenchResults): string {
  const d = r.delivery;
  const o = d.ours;
  const lines = [
    `push-notification-service benchmark, ${r.date}, commit ${r.commit}`,
    `${r.machine.cores} x ${r.machine.cpu}, ${r.machine.memoryGb} GiB, Node ${r.machine.node}, PostgreSQL ${r.machine.postgres}, Redis ${r.machine.redis}`,
    `worker NODE_OPTIONS as in docker-compose.yml: ${r.machine.workerNodeOptions || '(none)'}`,
    '',
    `Delivery: ${int(o.installations)} installations, ${int(r.options.users)} users, ${o.requests} requests of ${int(r.options.requestUsers)} users`,
    row('', 'per second', 'seconds', 'count'),
    row('ours, end to end (first POST to', int(o.deliveriesPerSecond), fixed(o.seconds), int(o.accepted + o.failed)),
    row('  last completed_at)'),
    row('  fan-out phase (to last fanned_out_at)', '', fixed(o.fanoutSeconds)),
    row('  provider phase (first to last send)', '', fixed(o.providerSeconds)),
    row('  worker CPU seconds / peak RSS MB', '', fixed(o.workerCpuSeconds, 1), int(o.workerPeakRssMb)),
    row(`  accepted / failed / skipped`, '', '', `${o.accepted}/${o.failed}/${o.skipped}`),
    ...(d.oursPostgresQueues
      ? [
          row(
            'ours, QUEUE_BACKEND=postgres',
            int(d.oursPostgresQueues.deliveriesPerSecond),
            fixed(d.oursPostgresQueues.seconds),
            int(d.oursPostgresQueues.accepted + d.oursPostgresQueues.failed),
          ),
          row('  fan-out / provider phase', '', `${fixed(d.oursPostgresQueues.fanoutSeconds)} / ${fixed(d.oursPostgresQueues.providerSeconds)}`),
        ]
      : []),
    row('ours, iOS only (platforms: ["ios"])', int(d.oursIos.deliveriesPerSecond), fixed(d.oursIos.seconds), int(d.oursIos.accepted + d.oursIos.failed)),
    row('  fan-out / provider phase', '', `${fixed(d.oursIos.fanoutSeconds)} / ${fixed(d.oursIos.providerSeconds)}`),
    row(
      'ours, one broadcast (recipients.all)',
      int(d.oursBroadcast.deliveriesPerSecond),
      fixed(d.oursBroadcast.seconds),
      int(d.oursBroadcast.accepted + d.oursBroadcast.failed),
    ),
    row('  fan-out / provider phase', '', `${fixed(d.oursBroadcast.fanoutSeconds)} / ${fixed(d.oursBroadcast.providerSeconds)}`),
    row('  worker CPU seconds / peak RSS MB', '', fixed(d.oursBroadcast.workerCpuSeconds, 1), int(d.oursBroadcast.workerPeakRssMb)),
    row(
      'ours, iOS broadcast (all, ["ios"])',
      int(d.oursBroadcastIos.deliveriesPerSecond),
      fixed(d.oursBroadcastIos.seconds),
      int(d.oursBroadcastIos.accepted + d.oursBroadcastIos.failed),
    ),
    row('  fan-out / provider phase', '', `${fixed(d.oursBroadcastIos.fanoutSeconds)} / ${fixed(d.oursBroadcastIos.providerSeconds)}`),
    row('  worker CPU seconds / peak RSS MB', '', fixed(d.oursBroadcastIos.workerCpuSeconds, 1), int(d.oursBroadcastIos.workerPeakRssMb)),
    row(
      `ceiling: node:http2, ${r.options.ceilingSessions}x${r.options.ceilingStreams} streams`,
      int(d.ceiling.perSecond),
      fixed(d.ceiling.seconds),
      int(d.ceiling.requests),
    ),
    row('peer: @parse/node-apn, chunks of 1000', int(d.peer.perSecond), fixed(d.peer.seconds), int(d.peer.requests)),
    row('ours / ceiling', fixed(d.oursOverCeiling)),
    row('ours / peer', fixed(d.oursOverPeer)),
    row('ours iOS only / ceiling', fixed(d.oursIosOverCeiling)),
    row('ours iOS only / peer', fixed(d.oursIosOverPeer)),
    '',
    'CPU per message, microseconds (whose CPU a delivery costs; see bench/README.md)',
    row('', 'sender', 'fakes', 'PostgreSQL', 'Redis'),
    cpuRow('ours, end to end', o.cpuMicrosPerDelivery),
    ...(d.oursPostgresQueues ? [cpuRow('ours, QUEUE_BACKEND=postgres', d.oursPostgresQueues.cpuMicrosPerDelivery)] : []),
    cpuRow('ours, iOS only', d.oursIos.cpuMicrosPerDelivery),
    cpuRow('ours, one broadcast', d.oursBroadcast.cpuMicrosPerDelivery),
    cpuRow('ours, iOS broadcast', d.oursBroadcastIos.cpuMicrosPerDelivery),
    clientCpuRow('ceiling (client process)', d.ceiling),
    clientCpuRow('peer (client process)', d.peer),
    '',
    `API: autocannon, ${r.api.connections} connections, ${r.options.apiRequests ? `${r.options.apiRequests} requests` : `${r.options.apiSeconds} s`} each; pool ${r.api.poolSize}`,
    row('', 'per second', 'p50 ms', 'p99 ms', 'errors'),
    row('PATCH /installations/{id}', int(r.api.patch.perSecond), fixed(r.api.patch.p50Ms, 1), fixed(r.api.patch.p99Ms, 1), String(r.api.patch.errors)),
    row(
      'PATCH, three properties',
      int(r.api.patchProperties.perSecond),
      fixed(r.api.patchProperties.p50Ms, 1),
      fixed(r.api.patchProperties.p99Ms, 1),
      String(r.api.patchProperties.errors),
    ),
    row(
      `raw UPDATE via pg (${int(r.api.rawUpdate.statements)})`,
      int(r.api.rawUpdate.perSecond),
      fixed(r.api.rawUpdate.p50Ms, 1),
      fixed(r.api.rawUpdate.p99Ms, 1),
      String(r.api.rawUpdate.errors),
    ),
    row('POST /notifications (10 users)', int(r.api.post.perSecond), fixed(r.api.post.p50Ms, 1), fixed(r.api.post.p99Ms, 1), String(r.api.post.errors)),
    row('PATCH / raw UPDATE', fixed(r.api.patchOverRaw)),
    row('CPU per request, microseconds', 'api', 'load', 'PostgreSQL', 'Redis'),
    cpuRow('  PATCH', r.api.patch.cpuMicrosPerRequest),
    cpuRow('  PATCH, three properties', r.api.patchProperties.cpuMicrosPerRequest),
    cpuRow('  raw UPDATE (load: the pg loop)', r.api.rawUpdate.cpuMicrosPerStatement),
    cpuRow('  POST', r.api.post.cpuMicrosPerRequest),
  ];
  if (r.memory) {
    const m = r.memory;
    lines.push(
      '',
      `Fan-out memory: ${int(m.installations)} installations, ${int(m.installations)} users, ${m.requests} requests`,
      row('worker RSS before the send (MB)', fixed(m.baselineRssMb, 0)),
      row('worker peak RSS (MB)', fixed(m.peakRssMb, 0)),
      row('RSS growth per 100k installations', fixed(m.growthMbPer100k)),
      row('send rate (deliveries/s), seconds', int(m.delivery.deliveriesPerSecond), fixed(m.delivery.seconds)),
    );
    for (const [b, label] of [
      [r.memoryBroadcast, 'one broadcast (recipients.all)'],
      [r.memoryFilter, 'one filter send (user_id exists, platform in all three)'],
    ] as const) {
      if (!b) continue;
      lines.push(
        `  the same as ${label}: ${int(b.installations)} installations (the whole app)`,
        row('worker RSS before the send (MB)', fixed(b.baselineRssMb, 0)),
        row('worker peak RSS (MB)', fixed(b.peakRssMb, 0)),
        row('RSS growth per 100k installations', fixed(b.growthMbPer100k)),
        row('send rate (deliveries/s), seconds', int(b.delivery.deliveriesPerSecond), fixed(b.delivery.seconds)),
      );
    }
  } else {
    lines.push('', 'Fan-out memory: not run (full run only)');
  }
  if (r.inbox) {
    const i = r.inbox;
    const b = i.pushAndInbox;
    lines.push(
      '',
      `Inbox (bench/inbox.ts): one broadcast with channels ["push", "inbox"] to ${int(i.users)} users, one installation each`,
      row('', 'per second', 'seconds', 'count'),
      row('deliveries (first POST to the end)', int(b.deliveriesPerSecond), fixed(b.seconds), int(b.accepted)),
      row('inbox messages stored (to fan-out end)', int(b.inboxPerSecond), fixed(b.fanoutSeconds), int(b.inboxStored)),
      row('', 'start', 'peak', 'end'),
      row('worker RSS (MB)', fixed(b.workerStartRssMb, 0), fixed(b.workerPeakRssMb, 0), fixed(b.workerEndRssMb, 0)),
      row('RSS growth per 100k deliveries', fixed(b.growthMbPer100k)),
      row('', 'idle', 'open', 'after a send'),
      row(`api RSS, ${int(i.streams.count)} streams (MB)`, fixed(i.streams.idleRssMb, 0), fixed(i.streams.openRssMb, 0), fixed(i.streams.afterSendRssMb, 0)),
      `  one send reached every stream ${int(i.streams.everyStreamMs)} ms after its POST`,
    );
  } else if (r.inbox === null) {
    lines.push('', 'Inbox: not run (--inbox 0)');
  }
  if (r.paced) {
    const p = r.paced;
    lines.push(
      '',
      `Throttled send, ${int(p.perMinute)} a minute (docs/api.md#pacing), ${int(p.accepted)} of ${int(p.installations)} accepted`,
      row('', 'most in 1 s', 'bound', 'seconds'),
      row(`rate ${int(p.perMinute / 60)}/s + 2 batches of ${p.batch}`, int(p.mostInASecond), int(p.bound), fixed(p.seconds)),
      `  ${p.mostInASecond - p.perMinute / 60} over the rate in the busiest sliding second (${p.mostInASecond <= p.bound ? 'within' : 'PAST'} the bound)`,
    );
  }
  if (r.latency) {
    const l = r.latency;
    lines.push(
      '',
      `Single-device send, POST to the fake APNs (api and worker processes), ${l.samples} sends one after another`,
      row('', 'p50 ms', 'p90 ms', 'p99 ms', 'max ms'),
      row('idle', fixed(l.idleMs.p50, 1), fixed(l.idleMs.p90, 1), fixed(l.idleMs.p99, 1), fixed(l.idleMs.max, 1)),
      row(
        `during a broadcast to ${int(l.broadcastInstallations)}`,
        fixed(l.busyMs.p50, 1),
        fixed(l.busyMs.p90, 1),
        fixed(l.busyMs.p99, 1),
        fixed(l.busyMs.max, 1),
      ),
      `  ${int(l.broadcastMessagesWhileMeasured)} broadcast messages arrived meanwhile; ${l.busyThroughout ? 'the broadcast outlasted every sample' : 'the broadcast ended before the last sample'}`,
    );
    if (l.floorIdleMs && l.floorBusyMs) {
      lines.push(
        '  the floor: the same sends through a bare durable pipeline (bench/lib/floor-pipeline.ts), taking turns with ours',
        row('  idle', fixed(l.floorIdleMs.p50, 1), fixed(l.floorIdleMs.p90, 1), fixed(l.floorIdleMs.p99, 1), fixed(l.floorIdleMs.max, 1)),
        row('  during the broadcast', fixed(l.floorBusyMs.p50, 1), fixed(l.floorBusyMs.p90, 1), fixed(l.floorBusyMs.p99, 1), fixed(l.floorBusyMs.max, 1)),
      );
    }
  }
  lines.push(...parseTable(r));
  lines.push('', 'Targets (ours over a baseline of the same run, then memory; MISSED is information, not a failure: bench/README.md "Targets")');
  // Wider than the other tables' label column: the Parse Server targets' names are long.
  const targetRow = (label: string, ...cells: string[]) => `  ${label.padEnd(52)}${cells.map((c) => c.padStart(10)).join('')}`;
  for (const t of r.targets) {
    lines.push(
      t.unmeasured === undefined
        ? `${targetRow(t.name, fixed(t.value), t.target, t.met ? 'met' : 'MISSED')}    ${t.detail ?? ''}`.trimEnd()
        : `${targetRow(t.name, '-', t.target, 'NO PEER')}    ${t.unmeasured}`,
    );
  }
  return lines.join('\n');
}

const describe = (c: ParseConfig) =>
  [
    c.maxSessionMemory ? `maxSessionMemory ${c.maxSessionMemory} MB` : '',
    c.requestTimeoutMs ? `requestTimeout ${c.requestTimeoutMs / 1000} s` : '',
    c.batchSize ? `batchSize ${c.batchSize}` : '',
  ]
    .filter(Boolean)
    .join(', ') || 'defaults: node-apn maxSessionMemory 10 MB, requestTimeout 5 s; Parse batchSize 100';

const pushLabel = (target: ParseTarget) => (target === 'users' ? 'userId $in' : 'all iOS');

/** Parse Server's pushes on each Node, then each kind at its best against ours of the same kind. */
function parseTable(r: BenchResults): string[] {
  const p = r.parse;
  if (!p) return ['', 'Parse Server: not run (--no-parse)'];
  const v = p.versions;
  const lines = [
    '',
    `Parse Server ${v.parseServer} (push adapter ${v.pushAdapter}, node-apn ${v.nodeApn}), own process and database: ${int(p.installations)} iOS installations of ${int(p.users)} users`,
    ...p.configs.map((c) => `  "${c.name}": ${describe(c)}`),
    // received is wider than the other cells: "100,000/100,000".
    `${row('', 'per second', 'seconds')}${'received'.padStart(18)}${['CPU us/msg', 'peak RSS MB'].map((c) => c.padStart(14)).join('')}`,
  ];
  const runRow = (label: string, perSecond: number, seconds: number, received: string, cpu: number, rss: number) =>
    `${row(label, int(perSecond), fixed(seconds, 1))}${received.padStart(18)}${[int(cpu), int(rss)].map((c) => c.padStart(14)).join('')}`;
  const parseRow = (label: string, run: ParseRun) =>
    runRow(label, run.deliveriesPerSecond, run.seconds, `${int(run.received)}/${int(run.expected)}`, serviceCpu(run.cpuMicrosPerDelivery), run.peakRssMb);
  for (const node of p.nodes) {
    for (const target of ['users', 'platform'] as const) {
      const runs = p.runs.filter((run) => run.node === node && run.target === target);
      if (runs.length > 0) lines.push(`  Node ${node}, ${pushLabel(target)}`);
      for (const run of runs) {
        lines.push(parseRow(`    ${run.config}`, run), `      push status: ${run.status}, numSent ${run.numSent}, numFailed ${run.numFailed}`);
        if (run.stoppedBecause) lines.push(`      stopped: ${run.stoppedBecause}`);
      }
    }
  }
  lines.push('Like for like: Parse at its best (every message delivered, highest rate, any Node and configuration)');
  for (const c of p.comparisons) {
    const o = r.delivery[c.ours];
    const label = c.target === 'platform' ? 'ours, iOS broadcast' : 'ours, iOS user ids';
    lines.push(
      runRow(
        label,
        o.deliveriesPerSecond,
        o.seconds,
        `${int(o.accepted)}/${int(o.accepted + o.failed)}`,
        serviceCpu(o.cpuMicrosPerDelivery),
        o.workerPeakRssMb,
      ),
    );
    if (c.peer) lines.push(parseRow(`Parse ${pushLabel(c.target)}, Node ${c.peer.node.split('.')[0]}`, c.peer), `    (${c.peer.config})`);
    else lines.push(`  Parse ${pushLabel(c.target)}: died, ${c.died}`);
    if (c.otherNode) {
      const o2 = c.otherNode;
      lines.push(
        `    best on the other Node (${o2.node}): ${o2.config}, ${int(o2.deliveriesPerSecond)}/s, ${int(o2.received)}/${int(o2.expected)} received, ${int(serviceCpu(o2.cpuMicrosPerDelivery))} us/msg, ${int(o2.peakRssMb)} MB${o2.complete ? '' : ' (died)'}`,
      );
    }
    if (c.deliveriesPerSecond !== null && c.cpuPerDelivery !== null && c.peakRss !== null) {
      lines.push(row('  ours / Parse: per second, CPU, RSS', fixed(c.deliveriesPerSecond), fixed(c.cpuPerDelivery), fixed(c.peakRss)));
    } else {
      lines.push('  ours / Parse: no ratio (a peer that died is no ratio in our favour)');
    }
  }
  return lines;
}

/**
 * bench/results/<date>-<commit>[-<label>].json (label "quick" for --quick runs); never overwrites
 * an earlier run of the same day and commit, it takes the next free -2, -3... instead.
 */
export function writeResults(r: BenchResults, dir: string, label?: string): string {
  mkdirSync(dir, { recursive: true });
  const base = join(dir, `${r.date.slice(0, 10)}-${r.commit}${label ? `-${label}` : ''}`);
  let file = `${base}.json`;
  for (let n = 2; existsSync(file); n++) file = `${base}-${n}.json`;
  writeFileSync(file, `${JSON.stringify(r, null, 2)}\n`);
  return file;
}
