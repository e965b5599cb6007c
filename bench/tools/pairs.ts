/**
 * Bench pairs: a build against another in the same run, alternating (bench/README.md "Bench pairs"),
 * for the figures a change must not make worse: CPU per APNs delivery, single-device latency (with
 * the floor's beside it) and the worker's memory. Each side of a round is a process of its own whose
 * spawned services run that side's build (TEST_DIST_DIR); round 1 runs the old build first, round 2
 * the new one first, and so on, so the machine's drift falls on both alike.
 *
 *   npm run build && npx ts-node --transpile-only bench/tools/pairs.ts --old /path/to/old/dist [--new dist] [--rounds 2] [--installations 100000] [--samples 200]
 *
 * One side, in a fresh stack (bench/lib/stack.ts) with `--installations` (half iOS, two a user):
 * an iOS-only send to every user to warm up, the same measured (CPU per APNs delivery: worker +
 * PostgreSQL + Redis), the bare APNs client on the same tokens; the memory runs' send to every user
 * and broadcast, each to a fresh worker (peak RSS, CPU per delivery); then `--samples` single-device
 * sends idle and as many during a broadcast to every installation, each taking turns with the floor
 * (bench/latency.ts). Prints each round's table, old against new, and the ratios new / old.
 * BENCH_PG_OWN_ONLY is 1 unless set: only the bench's own PostgreSQL processes are counted.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { measureClient, measureDelivery } from '../delivery';
import { FULL, memoryRun, peerCpu, serviceCpu } from '../harness';
import { measureLatency } from '../latency';
import { argText, argValue } from '../lib/args';
import { seedInstallations } from '../lib/seed';
import { startStack } from '../lib/stack';

/** What one side of a round measured; every figure a number (us, ms or MB). */
type Figures = Record<string, number>;

/** The rows of a round's table, in order. */
const ROWS = [
  'CPU per APNs delivery, iOS only (us)',
  '  worker (us)',
  '  PostgreSQL (us)',
  'bare APNs client CPU per message (us)',
  'iOS only / bare client',
  'CPU per delivery, broadcast, all platforms (us)',
  'single-device idle p50 (ms)',
  'single-device idle p99 (ms)',
  '  the floor idle p50 (ms)',
  '  the floor idle p99 (ms)',
  'single-device busy p50 (ms)',
  'single-device busy p99 (ms)',
  '  the floor busy p50 (ms)',
  '  the floor busy p99 (ms)',
  'worker RSS before a send (MB)',
  'worker peak RSS, send to every user (MB)',
  'worker peak RSS, broadcast (MB)',
] as const;

const log = (line: string) => process.stderr.write(`${new Date().toISOString().slice(11, 19)} [pairs] ${line}\n`);

/** One side: the figures of the build TEST_DIST_DIR points at, written as JSON to `out`. */
async function side(installations: number, samples: number, out: string): Promise<void> {
  const stack = await startStack('pairs');
  try {
    const seeded = await seedInstallations(stack, installations, installations / 2, 'q');
    await stack.db.query('VACUUM ANALYZE installations');
    await stack.startApi();
    await stack.startWorker();
    const ios = { requestUsers: 10_000, timeoutMs: FULL.timeoutMs, body: { options: { platforms: ['ios'] } } };
    log(`iOS-only send to ${seeded.userIds.length} users, to warm up, then measured`);
    await measureDelivery(stack, seeded, ios);
    const iosRun = await measureDelivery(stack, seeded, ios);
    const peer = await measureClient(stack, 'peer', seeded.iosTokens, { sessions: 4, streams: 250, chunkSize: 1000, count: seeded.iosTokens.length });
    const options = { ...FULL, memoryInstallations: installations, log };
    const users = await memoryRun(stack, options, seeded, 'users');
    const broadcast = await memoryRun(stack, options, seeded, 'broadcast');
    await stack.stopWorker();
    await stack.discardNotifications();
    log(`${samples} single-device sends idle, then during a broadcast to ${installations}`);
    const latency = await measureLatency(stack, { samples, installations, log });
    const cpu = iosRun.cpuMicrosPerDelivery;
    const values = [
      serviceCpu(cpu),
      cpu.service,
      cpu.postgres,
      peerCpu(peer),
      serviceCpu(cpu) / peerCpu(peer),
      serviceCpu(broadcast.delivery.cpuMicrosPerDelivery),
      latency.idleMs.p50,
      latency.idleMs.p99,
      latency.floorIdleMs!.p50,
      latency.floorIdleMs!.p99,
      latency.busyMs.p50,
      latency.busyMs.p99,
      latency.floorBusyMs!.p50,
      latency.floorBusyMs!.p99,
      users.baselineRssMb,
      users.peakRssMb,
      broadcast.peakRssMb,
    ];
    const figures: Figures = Object.fromEntries(ROWS.map((row, n) => [row, values[n]]));
    if (!latency.busyThroughout) log('the broadcast ended before the last busy sample: raise --installations for a busy figure');
    writeFileSync(out, JSON.stringify(figures));
  } finally {
    await stack.stop();
  }
}

/** Runs one side in a process of its own on the build in `dist`; its figures. */
async function runSide(dist: string, installations: number, samples: number): Promise<Figures> {
  const dir = mkdtempSync(join(tmpdir(), 'pns-bench-pairs-'));
  const out = join(dir, 'figures.json');
  try {
    const child = spawn(
      process.execPath,
      ['-r', 'ts-node/register/transpile-only', __filename, '--side', out, '--installations', String(installations), '--samples', String(samples)],
      { env: { ...process.env, TEST_DIST_DIR: dist, BENCH_PG_OWN_ONLY: process.env.BENCH_PG_OWN_ONLY ?? '1' }, stdio: ['ignore', 'inherit', 'inherit'] },
    );
    const code = await new Promise<number | null>((done) => child.on('exit', done));
    if (code !== 0) throw new Error(`the side on ${dist} exited with ${code}`);
    return JSON.parse(readFileSync(out, 'utf8')) as Figures;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const cell = (value: number) => (value >= 100 ? Math.round(value).toLocaleString('en-US') : value.toFixed(value >= 10 ? 1 : 2)).padStart(10);

/** A round's table: each figure old and new, and new / old. */
function roundTable(title: string, old: Figures, now: Figures): string {
  const lines = [title, `${''.padEnd(48)}${['old', 'new', 'new/old'].map((h) => h.padStart(10)).join('')}`];
  for (const row of ROWS) lines.push(`${row.padEnd(48)}${cell(old[row])}${cell(now[row])}${cell(now[row] / old[row])}`);
  return lines.join('\n');
}

async function main(): Promise<void> {
  const installations = argValue('--installations', 100_000);
  const samples = argValue('--samples', 200);
  const sideOut = argText('--side');
  if (sideOut) return side(installations, samples, sideOut);
  const root = resolve(__dirname, '..', '..');
  const oldDist = argText('--old');
  const newDist = resolve(root, argText('--new') ?? 'dist');
  const rounds = argValue('--rounds', 2);
  if (!oldDist) throw new Error('usage: bench/tools/pairs.ts --old <dist of the previous build> [--new dist] [--rounds N] [--installations N] [--samples N]');
  const builds = { old: resolve(root, oldDist), new: newDist };
  for (const dist of Object.values(builds)) {
    if (!existsSync(join(dist, 'src', 'main.js'))) throw new Error(`${dist}/src/main.js is missing: build it first`);
  }
  const started = Date.now();
  const ratios = new Map<string, number[]>(ROWS.map((row) => [row, []]));
  for (let round = 1; round <= rounds; round++) {
    const order = round % 2 === 1 ? (['old', 'new'] as const) : (['new', 'old'] as const);
    const figures: Partial<Record<'old' | 'new', Figures>> = {};
    for (const which of order) {
      log(`round ${round}: ${which} (${builds[which]})`);
      figures[which] = await runSide(builds[which], installations, samples);
    }
    const minutes = ((Date.now() - started) / 60_000).toFixed(1);
    const title = `Round ${round} of ${rounds} (${order.join(' then ')}; ${installations.toLocaleString('en-US')} installations, ${samples} latency samples; ${minutes} min so far)`;
    process.stdout.write(`${roundTable(title, figures.old!, figures.new!)}\n\n`);
    for (const row of ROWS) ratios.get(row)!.push(figures.new![row] / figures.old![row]);
  }
  process.stdout.write(`new / old, each round\n${ROWS.map((row) => `${row.padEnd(48)}${ratios.get(row)!.map(cell).join('')}`).join('\n')}\n`);
  process.stdout.write(`\nold: ${builds.old}\nnew: ${builds.new}\n`);
}

main().then(
  () => process.exit(0),
  (error: Error) => {
    process.stderr.write(`pairs failed: ${error.stack ?? error.message}\n`);
    process.exit(1);
  },
);
