/**
 * The inbox (docs/api.md#inbox): a broadcast to `--installations` users (default 1,000,000, one
 * installation each) sent twice by the built worker, push only and then with
 * `options.channels: ["push", "inbox"]`, reporting the rate the inbox messages were stored at (first
 * POST to the fan-out's end, which stores them) against the rate the same send reached the
 * providers, and the worker's peak RSS and its growth per 100,000 deliveries in both; then
 * `--streams` inbox streams (default 1,000) held open on the one api process, and its RSS before
 * and after, with the time one send takes to reach every stream (bench/HISTORY.md "The inbox").
 *
 *   npm run build && npx ts-node --transpile-only bench/scenarios/index.ts inbox [--installations N] [--streams N]
 */
import { get, type IncomingMessage } from 'node:http';
import { measureDelivery, postNotification } from '../delivery';
import { argValue } from '../lib/args';
import { rssBytes } from '../lib/cpu';
import { seedInstallations } from '../lib/seed';
import { startStack, type Stack } from '../lib/stack';

const INSTALLATIONS = argValue('--installations', 1_000_000);
const STREAMS = argValue('--streams', 1000);
const TIMEOUT_MS = 60 * 60_000;
const MB = 2 ** 20;

/** Least-squares slope of RSS (MB) over deliveries, per 100,000, past the first 10%. */
function growthPer100k(samples: { processed: number; rssMb: number }[]): number {
  const points = samples.filter((s) => s.processed > INSTALLATIONS / 10);
  if (points.length < 2) return 0;
  const mx = points.reduce((s, p) => s + p.processed, 0) / points.length;
  const my = points.reduce((s, p) => s + p.rssMb, 0) / points.length;
  const num = points.reduce((s, p) => s + (p.processed - mx) * (p.rssMb - my), 0);
  const den = points.reduce((s, p) => s + (p.processed - mx) ** 2, 0);
  return den === 0 ? 0 : (num / den) * 100_000;
}

async function broadcast(stack: Stack, seeded: Awaited<ReturnType<typeof seedInstallations>>, channels: string[]) {
  const samples: { processed: number; rssMb: number }[] = [];
  const delivery = await measureDelivery(stack, seeded, {
    requestUsers: 0,
    timeoutMs: TIMEOUT_MS,
    broadcast: true,
    body: { options: { channels } },
    onSample: (processed) => samples.push({ processed, rssMb: rssBytes(stack.worker!.pid) / MB }),
  });
  const { rows } = await stack.db.query<{ stored: number }>(
    `SELECT COALESCE(sum(stat_inbox_stored), 0)::int AS stored FROM notifications WHERE options -> 'channels' ? 'inbox'`,
  );
  return { delivery, growthMbPer100k: growthPer100k(samples), inboxStored: rows[0].stored };
}

/** Opens one stream; resolves with it once its first `unread` event came; `onMessage` for each `message` event after. */
function openStream(stack: Stack, userId: string, onMessage: () => void): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const req = get(
      { host: '127.0.0.1', port: stack.apiPort, path: `/api/v1/users/${userId}/inbox/stream`, headers: { authorization: `Bearer ${stack.token}` } },
      (res) => {
        if (res.statusCode !== 200) return reject(new Error(`stream: ${res.statusCode}`));
        let opened = false;
        res.setEncoding('utf8').on('data', (text: string) => {
          if (!opened && text.includes('event: unread')) {
            opened = true;
            resolve(res);
          }
          for (const _ of text.matchAll(/event: message/g)) onMessage();
        });
      },
    );
    req.on('error', reject);
  });
}

async function main(): Promise<void> {
  const stack = await startStack('inbox');
  try {
    const seeded = await seedInstallations(stack, INSTALLATIONS, INSTALLATIONS, 'i');
    await stack.startApi();
    await stack.startWorker();
    const push = await broadcast(stack, seeded, ['push']);
    const both = await broadcast(stack, seeded, ['push', 'inbox']);
    const inboxPerSecond = both.inboxStored / both.delivery.fanoutSeconds;

    const api = stack.api!;
    const idleRssMb = rssBytes(api.pid) / MB;
    let received = 0;
    const users = seeded.userIds.slice(0, STREAMS);
    const streams: IncomingMessage[] = [];
    for (let i = 0; i < users.length; i += 100)
      streams.push(...(await Promise.all(users.slice(i, i + 100).map((u) => openStream(stack, u, () => received++)))));
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const openRssMb = rssBytes(api.pid) / MB;
    const sentAt = performance.now();
    await postNotification(stack, users, { options: { channels: ['inbox'] } });
    while (received < STREAMS) await new Promise((resolve) => setTimeout(resolve, 10));
    const everyStreamMs = performance.now() - sentAt;
    const afterRssMb = rssBytes(api.pid) / MB;
    for (const res of streams) res.destroy();

    const result = {
      installations: INSTALLATIONS,
      push: {
        deliveriesPerSecond: push.delivery.deliveriesPerSecond,
        seconds: push.delivery.seconds,
        workerPeakRssMb: push.delivery.workerPeakRssMb,
        growthMbPer100k: push.growthMbPer100k,
      },
      pushAndInbox: {
        deliveriesPerSecond: both.delivery.deliveriesPerSecond,
        seconds: both.delivery.seconds,
        fanoutSeconds: both.delivery.fanoutSeconds,
        inboxStored: both.inboxStored,
        inboxPerSecond,
        inboxOverProviders: inboxPerSecond / both.delivery.deliveriesPerSecond,
        workerPeakRssMb: both.delivery.workerPeakRssMb,
        growthMbPer100k: both.growthMbPer100k,
      },
      streams: { count: STREAMS, idleRssMb, openRssMb, afterSendRssMb: afterRssMb, costMb: Math.max(openRssMb, afterRssMb) - idleRssMb, everyStreamMs },
    };
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  } finally {
    await stack.stop();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`${String(error instanceof Error ? error.stack : error)}\n`);
    process.exit(1);
  },
);
