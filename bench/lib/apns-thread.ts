import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { FakeApns } from '../../test/fakes';
import type { ApnsKey } from '../../test/fakes';

/**
 * A fake APNs on a thread of its own, for the latency section (bench/latency.ts, bench/README.md
 * "Latency"). The harness's main thread also runs the FCM and Web Push fakes (which decrypt every
 * message) and its own bookkeeping; during a broadcast their backlog held a request's handling
 * for hundreds of milliseconds, so an arrival timed there measured the fakes, not the service. On
 * its own thread, the fake APNs takes a message when its connection's bytes come, as Apple's would,
 * while everything still shares the same cores. It reports the watched device's messages with the
 * moment they arrived (milliseconds since the epoch, comparable between threads) and counts the rest.
 */
export interface ApnsThread {
  baseUrl: string;
  /** Messages for anyone but the watched device so far (as last reported: within 20 ms). */
  readonly others: number;
  /** Reports each message to `token` whose text includes `marker`, with when it arrived. */
  watch(token: string, marker: string, arrived: (at: number) => void): void;
  stop(): Promise<void>;
}

interface Started {
  url: string;
}
interface Report {
  others: number;
  arrivedAt?: number;
}

export async function startApnsThread(key: ApnsKey, topic: string): Promise<ApnsThread> {
  const worker = new Worker(`require('ts-node').register({ transpileOnly: true }); require(${JSON.stringify(__filename)});`, {
    eval: true,
    workerData: { apnsThread: { keyId: key.keyId, teamId: key.teamId, publicKeyPem: key.publicKey.export({ type: 'spki', format: 'pem' }), topic } },
  });
  let others = 0;
  let onArrival: ((at: number) => void) | undefined;
  const url = await new Promise<string>((resolve, reject) => {
    worker.once('error', reject);
    worker.once('message', (m: Started) => resolve(m.url));
  });
  worker.on('message', (m: Report) => {
    others = m.others;
    if (m.arrivedAt !== undefined) onArrival?.(m.arrivedAt);
  });
  return {
    baseUrl: url,
    get others() {
      return others;
    },
    watch(token, marker, arrived) {
      onArrival = arrived;
      worker.postMessage({ watch: { token, marker } });
    },
    async stop() {
      worker.postMessage({ stop: true });
      await new Promise((resolve) => worker.once('exit', resolve));
    },
  };
}

/** The thread's side. */
if (!isMainThread && (workerData as { apnsThread?: unknown })?.apnsThread) {
  const { keyId, teamId, publicKeyPem, topic } = (workerData as { apnsThread: { keyId: string; teamId: string; publicKeyPem: string; topic: string } })
    .apnsThread;
  const port = parentPort!;
  const fake = new FakeApns();
  fake.addKey({ keyId, teamId, publicKey: publicKeyPem });
  fake.allowTopic(topic);
  let watched: { token: string; marker: string } | undefined;
  let others = 0;
  fake.logTo((record) => {
    if (watched && record.token === watched.token && record.text.includes(watched.marker)) {
      port.postMessage({ others, arrivedAt: performance.timeOrigin + performance.now() } satisfies Report);
    } else others++;
  }, 1000);
  let counts: NodeJS.Timeout | undefined;
  port.on('message', (m: { watch?: { token: string; marker: string }; stop?: true }) => {
    if (m.watch) watched = m.watch;
    if (m.stop) {
      clearInterval(counts);
      void fake.stop().then(() => port.close());
    }
  });
  void fake.start().then((url) => {
    port.postMessage({ url } satisfies Started);
    counts = setInterval(() => port.postMessage({ others } satisfies Report), 20);
  });
}
