import { randomBytes } from 'node:crypto';
import type { Stack } from './lib/stack';

/**
 * Single-device send latency (bench/README.md "Latency"): from the POST of a send to one user with
 * one iOS device to that message's arrival at the fake APNs, through the built api and worker
 * processes. Used by the full bench (idle, then during a broadcast to every installation of the
 * run) and by bench/pacing-latency.ts (during a throttled broadcast).
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

/** One device (its own user), and every other message the fakes receive counted. */
export class LatencyProbe {
  private readonly token = randomBytes(32).toString('hex');
  private readonly user = `latency-probe-${randomBytes(4).toString('hex')}`;
  private arrived: (() => void) | null = null;
  /** Messages the fakes received for anyone but the probe. */
  others = 0;

  constructor(private readonly stack: Stack) {
    // The fakes keep a short log (a broadcast would fill the harness's memory); the probe's arrival is caught as it comes.
    stack.apns.logTo((record) => {
      // The broadcasts reach the probe's device too: only its own sends count as arrived.
      if (record.token === this.token && record.text.includes(PROBE_TITLE)) this.arrived?.();
      else this.others++;
    }, 1000);
    stack.fcm.logTo(() => this.others++, 1000);
    stack.web.logTo(() => this.others++, 1000);
  }

  /** Registers the device, then sends to it `warmUp` times (connections, prepared statements, the provider token). */
  async start(warmUp = 10): Promise<void> {
    await this.api('PUT', `/api/v1/installations/${this.user}`, { platform: 'ios', push_token: this.token, user_id: this.user });
    for (let n = 0; n < warmUp; n++) await this.timed();
  }

  /** Milliseconds each timed send's POST took to be answered (the API's share of its latency). */
  readonly answered: number[] = [];

  /** Milliseconds from one send's POST to its arrival at the fake APNs. */
  async timed(): Promise<number> {
    const landed = new Promise<void>((resolve) => (this.arrived = resolve));
    const started = performance.now();
    // An Idempotency-Key, so a request whose connection broke (a keep-alive socket the server had just closed) is sent again safely.
    const key = randomBytes(8).toString('hex');
    const body = { recipients: { user_ids: [this.user] }, notification: { title: PROBE_TITLE, body: '123456' } };
    await this.api('POST', '/api/v1/notifications', body, key).catch((error: unknown) => {
      if (error instanceof TypeError) return this.api('POST', '/api/v1/notifications', body, key);
      throw error;
    });
    this.answered.push(performance.now() - started);
    await landed;
    return performance.now() - started;
  }

  /** `count` sends one after another; their latencies. */
  async samples(count: number): Promise<number[]> {
    const times: number[] = [];
    for (let n = 0; n < count; n++) times.push(await this.timed());
    return times;
  }

  /** The fakes log every request again, without a limit. */
  stop(): void {
    for (const fake of [this.stack.apns, this.stack.fcm, this.stack.web] as { logTo(listener: () => void): void }[]) fake.logTo(() => undefined);
  }

  async api(method: string, path: string, body?: unknown, idempotencyKey?: string): Promise<Record<string, any>> {
    const res = await fetch(`http://127.0.0.1:${this.stack.apiPort}${path}`, {
      method,
      headers: {
        Authorization: `Bearer ${this.stack.token}`,
        'Content-Type': 'application/json',
        ...(idempotencyKey ? { 'Idempotency-Key': idempotencyKey } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
    return (await res.json()) as Record<string, any>;
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
}

/**
 * `samples` single-device sends idle, then as many while one broadcast (`recipients.all`, every
 * platform, as fast as it goes) is delivered to the run's `installations`; waits for the broadcast
 * to complete.
 */
export async function measureLatency(stack: Stack, options: { samples: number; installations: number; log: (line: string) => void }): Promise<LatencyResult> {
  const probe = new LatencyProbe(stack);
  try {
    await probe.start();
    const idle = await probe.samples(options.samples);
    options.log(`latency: idle p99 ${quantiles(idle).p99.toFixed(1)} ms; again during a broadcast to ${options.installations} installations`);
    const broadcast = await probe.api('POST', '/api/v1/notifications', { recipients: { all: true }, notification: { title: 'Weekend sale', body: '20% off' } });
    while (probe.others < Math.min(100, options.installations / 10)) await new Promise((resolve) => setTimeout(resolve, 10));
    const before = probe.others;
    const busy = await probe.samples(options.samples);
    const during = probe.others - before;
    const busyThroughout = probe.others < options.installations;
    const id = broadcast.data.id as string;
    for (;;) {
      const n = (await probe.api('GET', `/api/v1/notifications/${id}`)).data;
      if (n.completed_at) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    return {
      samples: options.samples,
      idleMs: quantiles(idle),
      busyMs: quantiles(busy),
      broadcastInstallations: options.installations,
      broadcastMessagesWhileMeasured: during,
      busyThroughout,
    };
  } finally {
    probe.stop();
  }
}
