import { randomBytes } from 'node:crypto';
import { Worker } from 'node:worker_threads';
import { QUEUES, SMALL_SEND_QUEUE } from '../src/common/queues';
import type { ServiceProcess } from '../test/support/processes';
import { startApnsThread, type ApnsThread } from './lib/apns-thread';
import { startFloor, type Floor } from './lib/floor';
import { APNS_TOPIC, type Stack } from './lib/stack';

/**
 * Single-device send latency (bench/README.md "Latency"): from the POST of a send to one user with
 * one iOS device to that message's arrival at the fake APNs, through the built api and worker
 * processes. Used by the full bench (idle, then during a broadcast to every installation of the
 * run) and by bench/scenarios/pacing-latency.ts (during a throttled broadcast).
 */

export interface Quantiles {
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

export function quantiles(values: number[]): Quantiles {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
  return { p50: at(0.5), p90: at(0.9), p99: at(0.99), max: sorted[sorted.length - 1] };
}

const PROBE_TITLE = 'Your code';

/**
 * The probe's HTTP client, on a thread of its own: the harness's main thread also runs the fake
 * providers, whose event loop a broadcast keeps busy for hundreds of milliseconds at a time, so a
 * request timed there measured the fakes' backlog, not the API (bench/README.md "Latency"). It
 * answers each request with when it was sent and when its answer came, read on its own clock. A
 * request whose connection broke (a keep-alive socket the server had just closed) is sent again
 * when it carries an Idempotency-Key, as that makes it safe.
 */
const CLIENT = `
const { parentPort } = require('node:worker_threads');
const epochMs = () => performance.timeOrigin + performance.now();
parentPort.on('message', async ({ id, url, init }) => {
  const started = epochMs();
  try {
    const res = await fetch(url, init).catch((error) => {
      if (error instanceof TypeError && init.headers['Idempotency-Key']) return fetch(url, init);
      throw error;
    });
    const text = await res.text();
    parentPort.postMessage({ id, started, answered: epochMs(), status: res.status, text });
  } catch (error) {
    parentPort.postMessage({ id, started, error: String(error) });
  }
});`;

interface ClientAnswer {
  id: number;
  started: number;
  answered: number;
  status: number;
  text: string;
  error?: string;
}

/** One device (its own user), and every other message the fakes receive counted. */
export class LatencyProbe {
  private readonly token = randomBytes(32).toString('hex');
  private readonly user = `latency-probe-${randomBytes(4).toString('hex')}`;
  private arrived: ((at: number) => void) | null = null;
  private readonly client = new Worker(CLIENT, { eval: true });
  private readonly pending = new Map<number, (answer: ClientAnswer) => void>();
  private nextId = 0;
  /** Messages the FCM and Web Push fakes received. */
  private elsewhere = 0;

  /** Messages the fakes received for anyone but the probe. */
  get others(): number {
    return this.apns.others + this.elsewhere;
  }

  /** `apns`: the fake APNs the worker sends to (startProbedWorker); `keyed`: each send with an Idempotency-Key (the default). */
  constructor(
    private readonly stack: Stack,
    private readonly apns: ApnsThread,
    private readonly keyed = true,
  ) {
    this.client.on('message', (answer: ClientAnswer) => {
      this.pending.get(answer.id)?.(answer);
      this.pending.delete(answer.id);
    });
    // The broadcasts reach the probe's device too: only its own sends count as arrived, timed as the fake takes them.
    apns.watch(this.token, PROBE_TITLE, (at) => this.arrived?.(at));
    // The fakes keep a short log (a broadcast would fill the harness's memory).
    stack.fcm.logTo(() => this.elsewhere++, 1000);
    stack.web.logTo(() => this.elsewhere++, 1000);
  }

  /** Registers the device, then sends to it `warmUp` times (connections, prepared statements, the provider token). */
  async start(warmUp = 10): Promise<void> {
    await this.api('PUT', `/api/v1/installations/${this.user}`, { platform: 'ios', push_token: this.token, user_id: this.user });
    for (let n = 0; n < warmUp; n++) await this.timed();
  }

  /** Milliseconds each timed send's POST took to be answered (the API's share of its latency). */
  readonly answered: number[] = [];

  /** Milliseconds from one send's POST to its arrival at the fake APNs; `keyed`: with an Idempotency-Key. */
  async timed(keyed = this.keyed): Promise<number> {
    // An Idempotency-Key, so a request whose connection broke is sent again safely.
    const key = keyed ? randomBytes(8).toString('hex') : undefined;
    const body = { recipients: { user_ids: [this.user] }, notification: { title: PROBE_TITLE, body: '123456' } };
    return this.timedArrival(() => this.request('POST', '/api/v1/notifications', body, key));
  }

  /**
   * The same message to the same device through another pipeline that sends to the same fake APNs
   * (bench/lib/floor-pipeline.ts): a POST of `{ token, title, body }` to `url`.
   */
  async timedVia(url: string): Promise<number> {
    return this.timedArrival(() => this.post(url, { token: this.token, title: PROBE_TITLE, body: '123456' }));
  }

  private async timedArrival(send: () => Promise<ClientAnswer>): Promise<number> {
    const landed = new Promise<number>((resolve) => (this.arrived = resolve));
    const { started, answered } = await send();
    this.answered.push(answered - started);
    // A send that never arrives (a worker process that died) fails the run rather than hanging it.
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('a single-device send did not reach the fake APNs within 60 s')), 60_000);
    });
    try {
      return (await Promise.race([landed, deadline])) - started;
    } finally {
      clearTimeout(timer);
    }
  }

  /** `count` sends one after another; their latencies. */
  async samples(count: number): Promise<number[]> {
    const times: number[] = [];
    for (let n = 0; n < count; n++) times.push(await this.timed());
    return times;
  }

  /** The fakes log every request again, without a limit; the client thread ends. */
  stop(): void {
    for (const fake of [this.stack.fcm, this.stack.web] as { logTo(listener: () => void): void }[]) fake.logTo(() => undefined);
    void this.client.terminate();
  }

  async api(method: string, path: string, body?: unknown): Promise<Record<string, any>> {
    return JSON.parse((await this.request(method, path, body)).text) as Record<string, any>;
  }

  /** One request to the api through the client thread; throws on an answer of 300 or more. */
  private async request(method: string, path: string, body?: unknown, idempotencyKey?: string): Promise<ClientAnswer> {
    const headers: Record<string, string> = { Authorization: `Bearer ${this.stack.token}`, 'Content-Type': 'application/json' };
    if (idempotencyKey) headers['Idempotency-Key'] = idempotencyKey;
    return this.fetch(`http://127.0.0.1:${this.stack.apiPort}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  }

  /** A JSON POST to any url through the client thread. */
  private post(url: string, body: unknown): Promise<ClientAnswer> {
    return this.fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  }

  private async fetch(url: string, init: { method: string; headers: Record<string, string>; body?: string }): Promise<ClientAnswer> {
    const id = this.nextId++;
    const answer = new Promise<ClientAnswer>((resolve) => this.pending.set(id, resolve));
    this.client.postMessage({ id, url, init });
    const result = await answer;
    if (result.error) throw new Error(`${init.method} ${url}: ${result.error}`);
    if (result.status >= 300) throw new Error(`${init.method} ${url}: ${result.status} ${result.text}`);
    return result;
  }
}

export interface LatencyResult {
  samples: number;
  idleMs: Quantiles;
  busyMs: Quantiles;
  /** Installations the broadcast reached, and how many of its messages arrived while the busy samples ran. */
  broadcastInstallations: number;
  broadcastMessagesWhileMeasured: number;
  /** The broadcast was still being delivered when the last busy sample arrived. */
  busyThroughout: boolean;
  /**
   * The same sends through the floor (bench/lib/floor-pipeline.ts), taking turns with ours: what
   * the machine gives a bare durable pipeline. Absent from results written before it existed.
   */
  floorIdleMs?: Quantiles;
  floorBusyMs?: Quantiles;
}

/** One pipeline's sends (takeTurns): milliseconds from each POST to its arrival (`e2e`) and to its answer (`post`). */
export interface TurnTimes {
  e2e: number[];
  post: number[];
}

/**
 * `samples` rounds in which each of `pipelines` (a send to the probe's device, timed) sends once, in
 * order, so the machine's drift falls on all of them alike.
 */
export async function takeTurns<K extends string>(
  probe: LatencyProbe,
  pipelines: Record<K, () => Promise<number>>,
  samples: number,
): Promise<Record<K, TurnTimes>> {
  const names = Object.keys(pipelines) as K[];
  const times = {} as Record<K, TurnTimes>;
  for (const name of names) times[name] = { e2e: [], post: [] };
  for (let n = 0; n < samples; n++) {
    for (const name of names) {
      probe.answered.length = 0;
      times[name].e2e.push(await pipelines[name]());
      times[name].post.push(probe.answered[0]);
    }
  }
  return times;
}

/** Posts one broadcast to every installation (every platform, as fast as it goes), waits until `messages` others have arrived, answers its id. */
export async function startBroadcast(probe: LatencyProbe, messages: number): Promise<string> {
  const broadcast = await probe.api('POST', '/api/v1/notifications', { recipients: { all: true }, notification: { title: 'Weekend sale', body: '20% off' } });
  while (probe.others < messages) await new Promise((resolve) => setTimeout(resolve, 10));
  return broadcast.data.id as string;
}

/**
 * `samples` single-device sends idle, then as many while one broadcast (startBroadcast) is delivered
 * to the run's `installations`; waits for the broadcast to complete. Each of ours takes turns with
 * one through the floor (bench/lib/floor.ts), so the machine's drift falls on both alike.
 */
export async function measureLatency(stack: Stack, options: { samples: number; installations: number; log: (line: string) => void }): Promise<LatencyResult> {
  const workers = await startProbedWorker(stack);
  const probe = new LatencyProbe(stack, workers.apns);
  let floor: Floor | undefined;
  try {
    floor = await startFloor(stack, workers.apns.baseUrl);
    const { url } = floor;
    const pipelines = { ours: () => probe.timed(), floor: () => probe.timedVia(url) };
    await probe.start();
    for (let n = 0; n < 10; n++) await pipelines.floor();
    const idle = await takeTurns(probe, pipelines, options.samples);
    options.log(
      `latency: idle p99 ${quantiles(idle.ours.e2e).p99.toFixed(1)} ms (the floor ${quantiles(idle.floor.e2e).p99.toFixed(1)}); again during a broadcast to ${options.installations} installations`,
    );
    const id = await startBroadcast(probe, Math.min(100, options.installations / 10));
    const before = probe.others;
    const busy = await takeTurns(probe, pipelines, options.samples);
    const during = probe.others - before;
    const busyThroughout = probe.others < options.installations;
    for (;;) {
      const n = (await probe.api('GET', `/api/v1/notifications/${id}`)).data;
      if (n.completed_at) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    return {
      samples: options.samples,
      idleMs: quantiles(idle.ours.e2e),
      busyMs: quantiles(busy.ours.e2e),
      broadcastInstallations: options.installations,
      broadcastMessagesWhileMeasured: during,
      busyThroughout,
      floorIdleMs: quantiles(idle.floor.e2e),
      floorBusyMs: quantiles(busy.floor.e2e),
    };
  } finally {
    probe.stop();
    await floor?.stop();
    await workers.stop();
  }
}

/** Every queue but the small sends': the campaign lane (docs/operations.md "A worker process per lane"). */
export const CAMPAIGN_QUEUES = QUEUES.filter((queue) => queue !== SMALL_SEND_QUEUE).join(',');

/** The worker processes a LatencyProbe measures, and the fake APNs they send to. */
export interface ProbedWorkers {
  apns: ApnsThread;
  /** Stops the worker processes, then the fake APNs. */
  stop(): Promise<void>;
}

/**
 * Starts the worker (stopped before) with its APNs on a thread of its own (bench/lib/apns-thread.ts),
 * the provider a LatencyProbe times arrivals at; the FCM and Web Push fakes stay the stack's. With
 * `lanes` 2, as docs/operations.md recommends where one-time codes must not wait behind campaigns,
 * a second worker process takes `deliver-small` alone (WORKER_QUEUES) and the first every other queue.
 */
export async function startProbedWorker(stack: Stack, lanes: 1 | 2 = 2): Promise<ProbedWorkers> {
  const apns = await startApnsThread(stack.apnsKey, APNS_TOPIC);
  await stack.startWorker({ APNS_URL: apns.baseUrl, ...(lanes === 2 ? { WORKER_QUEUES: CAMPAIGN_QUEUES } : {}) });
  const small = lanes === 2 ? await startSmallSendWorker(stack, apns.baseUrl) : undefined;
  return {
    apns,
    async stop() {
      await Promise.all([small?.stop('SIGTERM', 30_000), stack.stopWorker()]);
      await apns.stop();
    },
  };
}

/** The deliver-small lane's own worker process (not the stack's `worker`: the caller stops it). */
async function startSmallSendWorker(stack: Stack, apnsUrl: string): Promise<ServiceProcess> {
  const saved = stack.worker;
  try {
    return await stack.startWorker({ APNS_URL: apnsUrl, WORKER_QUEUES: SMALL_SEND_QUEUE });
  } finally {
    stack.worker = saved;
  }
}
