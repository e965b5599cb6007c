/**
 * Issue 29's latency check (docs/api.md#pacing: "other notifications are not slowed"), on the built
 * service (bench/lib/stack.ts: api and worker processes, loopback fakes, a fresh database):
 *
 *   1. `--installations` installations (default 1,000,000) are seeded, and one more iOS device;
 *   2. idle: `--samples` single-device transactional sends to that device (default 50), one at a
 *      time, each timed from its POST to its arrival at the fake APNs;
 *   3. busy: a marketing broadcast to every installation, throttled to `--throttle` a minute
 *      (default 120,000; 0: not throttled), is accepted and left running; once the fake providers have received its
 *      first messages, the same samples again; then it is cancelled.
 *
 * The worker runs as two processes (`--lanes 2`, the default: deliver-small in one of its own,
 * docs/operations.md "A worker process per lane") or as one (`--lanes 1`).
 *
 * It prints p50, p90, p99 and the largest of both, and the busy p99 against the idle p99 + 10 ms.
 *
 *   npm run build && npx ts-node --transpile-only bench/scenarios/index.ts pacing-latency [--installations N] [--samples N] [--throttle N] [--lanes 1|2]
 */
import { LatencyProbe, quantiles, startProbedWorker, type ProbedWorkers } from '../latency';
import { seedInstallations } from '../lib/seed';
import { startStack } from '../lib/stack';
import { argValue } from '../lib/args';

const INSTALLATIONS = argValue('--installations', 1_000_000);
const SAMPLES = argValue('--samples', 50);
const THROTTLE = argValue('--throttle', 120_000);
/** Worker processes: 2 (default) gives deliver-small one of its own (WORKER_QUEUES), 1 runs every queue in one. */
const LANES = argValue('--lanes', 2) === 1 ? 1 : 2;
const log = (line: string) => process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${line}\n`);

async function main(): Promise<void> {
  const stack = await startStack('pacing-latency');
  let workers: ProbedWorkers | undefined;
  let probe: LatencyProbe | undefined;
  try {
    log(`seeding ${INSTALLATIONS} installations`);
    await seedInstallations(stack, INSTALLATIONS, INSTALLATIONS, 'p');
    await stack.db.query('VACUUM ANALYZE installations');
    await stack.startApi();
    workers = await startProbedWorker(stack, LANES);
    probe = new LatencyProbe(stack, workers.apns);
    await probe.start();
    probe.answered.length = 0;
    const idle = await probe.samples(SAMPLES);
    const idleAnswered = probe.answered.splice(0);
    log(`idle: ${JSON.stringify(quantiles(idle))}`);

    const broadcast = await probe.api('POST', '/api/v1/notifications', {
      recipients: { all: true },
      notification: { title: 'Weekend sale', body: '20% off' },
      // --throttle 0: a broadcast as fast as it goes (issue 32's "during a broadcast").
      options: THROTTLE > 0 ? { category: 'marketing', throttle_per_minute: THROTTLE } : { category: 'marketing' },
    });
    const id = broadcast.data.id as string;
    while (probe.others < 100) await new Promise((resolve) => setTimeout(resolve, 50));
    log(`broadcast ${id} running (${probe.others} messages so far)`);
    probe.answered.length = 0;
    const busy = await probe.samples(SAMPLES);
    const busyAnswered = probe.answered.splice(0);
    const during = probe.others;
    // A broadcast that finished while measured cannot be cancelled (409): nothing left to stop.
    const stillRunning = !(await probe.api('GET', `/api/v1/notifications/${id}`)).data.completed_at;
    if (stillRunning) await probe.api('POST', `/api/v1/notifications/${id}/cancel`);
    const result = {
      installations: INSTALLATIONS,
      samples: SAMPLES,
      throttlePerMinute: THROTTLE,
      workerProcesses: LANES,
      broadcastMessagesWhileMeasured: during,
      broadcastRunningAfterwards: stillRunning,
      idleMs: quantiles(idle),
      busyMs: quantiles(busy),
      // The API's share: from the POST to its 202.
      idlePostMs: quantiles(idleAnswered),
      busyPostMs: quantiles(busyAnswered),
    };
    const limit = result.idleMs.p99 + 10;
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    process.stdout.write(
      `busy p99 ${result.busyMs.p99.toFixed(1)} ms against idle p99 + 10 = ${limit.toFixed(1)} ms: ${result.busyMs.p99 <= limit ? 'met' : 'MISSED'}\n`,
    );
  } catch (error) {
    // What the service processes said, to tell a crash from a slow answer.
    log(
      `api (${stack.api?.alive ? 'running' : 'exited'}):\n${stack.api?.output() ?? ''}\nworker (${stack.worker?.alive ? 'running' : 'exited'}):\n${stack.worker?.output() ?? ''}`,
    );
    throw error;
  } finally {
    probe?.stop();
    await workers?.stop();
    await stack.stop();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${String(error instanceof Error ? error.stack : error)}\n`);
  process.exit(1);
});
