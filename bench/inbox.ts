/**
 * The inbox (docs/api.md#inbox, issue 52's "Must hold"), on a stack of its own: `users` users of
 * one installation each, one broadcast with `options.channels: ["push", "inbox"]` sent by the built
 * worker, reporting the rate the inbox messages were stored at (first POST to the fan-out's end,
 * which stores them) against the rate the same send reached the providers, and the worker's RSS at
 * the start, its peak, at the end and its growth per 100,000 deliveries; then `streams` inbox
 * streams held open on the one api process, its RSS before and after, and the time one send takes
 * to reach every stream. With `pushOnly`, a push-only broadcast to the same users first, to compare.
 *
 * Part of `npm run bench` (`--inbox N`, `--inbox-streams N`) and `npm run bench:scenario -- inbox`.
 */
import { get, type IncomingMessage } from 'node:http';
import { measureDelivery, postNotification, type DeliveryResult } from './delivery';
import { rssBytes } from './lib/cpu';
import { seedInstallations, type Seeded } from './lib/seed';
import { startStack, type Stack } from './lib/stack';

const MB = 2 ** 20;

export interface InboxOptions {
  users: number;
  streams: number;
  timeoutMs: number;
  /** A push-only broadcast to the same users first (the scenario's `--push-only`). */
  pushOnly?: boolean;
  log: (line: string) => void;
}

export interface InboxBroadcast {
  deliveriesPerSecond: number;
  seconds: number;
  fanoutSeconds: number;
  accepted: number;
  /** The worker's RSS just before the POST, its peak, and after the send completed (MB). */
  workerStartRssMb: number;
  workerPeakRssMb: number;
  workerEndRssMb: number;
  /** Least-squares slope of the worker's RSS over the second half of the deliveries, per 100,000 (MB). */
  growthMbPer100k: number;
}

export interface InboxResult {
  users: number;
  pushOnly: InboxBroadcast | null;
  pushAndInbox: InboxBroadcast & { inboxStored: number; inboxPerSecond: number; inboxOverProviders: number };
  streams: { count: number; idleRssMb: number; openRssMb: number; afterSendRssMb: number; costMb: number; everyStreamMs: number };
}

/**
 * Least-squares slope of RSS (MB) over deliveries, per 100,000, over the second half of the send:
 * the first deliveries warm the worker (caches, HTTP/2 sessions: about 70 MB over the first
 * 100,000 at any size, bench/HISTORY.md "The inbox"), which past the first 10% of a 100,000-user
 * send would read as growth.
 */
export function growthPer100k(samples: { processed: number; rssMb: number }[], total: number): number {
  const points = samples.filter((s) => s.processed > total / 2);
  if (points.length < 2) return 0;
  const mx = points.reduce((s, p) => s + p.processed, 0) / points.length;
  const my = points.reduce((s, p) => s + p.rssMb, 0) / points.length;
  const num = points.reduce((s, p) => s + (p.processed - mx) * (p.rssMb - my), 0);
  const den = points.reduce((s, p) => s + (p.processed - mx) ** 2, 0);
  return den === 0 ? 0 : (num / den) * 100_000;
}

async function broadcast(
  stack: Stack,
  seeded: Seeded,
  options: InboxOptions,
  channels: string[],
): Promise<{ delivery: DeliveryResult; result: InboxBroadcast }> {
  const pid = stack.worker!.pid;
  const samples: { processed: number; rssMb: number }[] = [];
  const workerStartRssMb = rssBytes(pid) / MB;
  const delivery = await measureDelivery(stack, seeded, {
    requestUsers: 0,
    timeoutMs: options.timeoutMs,
    broadcast: true,
    body: { options: { channels } },
    onSample: (processed) => {
      samples.push({ processed, rssMb: rssBytes(pid) / MB });
      if (samples.length % 60 === 0) options.log(`inbox: ${processed} delivered, worker RSS ${samples[samples.length - 1].rssMb.toFixed(0)} MB`);
    },
  });
  const workerEndRssMb = rssBytes(pid) / MB;
  return {
    delivery,
    result: {
      deliveriesPerSecond: delivery.deliveriesPerSecond,
      seconds: delivery.seconds,
      fanoutSeconds: delivery.fanoutSeconds,
      accepted: delivery.accepted,
      workerStartRssMb,
      workerPeakRssMb: Math.max(delivery.workerPeakRssMb, workerEndRssMb, ...samples.map((s) => s.rssMb)),
      workerEndRssMb,
      growthMbPer100k: growthPer100k(samples, options.users),
    },
  };
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

async function measureStreams(stack: Stack, seeded: Seeded, options: InboxOptions): Promise<InboxResult['streams']> {
  const api = stack.api!;
  const idleRssMb = rssBytes(api.pid) / MB;
  let received = 0;
  const users = seeded.userIds.slice(0, options.streams);
  const streams: IncomingMessage[] = [];
  try {
    for (let i = 0; i < users.length; i += 100)
      streams.push(...(await Promise.all(users.slice(i, i + 100).map((u) => openStream(stack, u, () => received++)))));
    // Let the connections' first allocations settle before RSS is read.
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const openRssMb = rssBytes(api.pid) / MB;
    const sentAt = performance.now();
    await postNotification(stack, users, { options: { channels: ['inbox'] } });
    const deadline = Date.now() + options.timeoutMs;
    while (received < users.length) {
      if (Date.now() > deadline) throw new Error(`inbox streams: ${received} of ${users.length} messages arrived`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const everyStreamMs = performance.now() - sentAt;
    const afterSendRssMb = rssBytes(api.pid) / MB;
    return { count: users.length, idleRssMb, openRssMb, afterSendRssMb, costMb: Math.max(openRssMb, afterSendRssMb) - idleRssMb, everyStreamMs };
  } finally {
    for (const res of streams) res.destroy();
  }
}

export async function measureInbox(options: InboxOptions): Promise<InboxResult> {
  const stack = await startStack('inbox');
  try {
    options.log(`inbox: seeding ${options.users} users of one installation each`);
    const seeded = await seedInstallations(stack, options.users, options.users, 'i');
    await stack.db.query('VACUUM ANALYZE installations');
    await stack.startApi();
    await stack.startWorker();
    let pushOnly: InboxBroadcast | null = null;
    if (options.pushOnly) {
      pushOnly = (await broadcast(stack, seeded, options, ['push'])).result;
      options.log(`inbox: push only ${Math.round(pushOnly.deliveriesPerSecond)} deliveries/s`);
    }
    options.log(`inbox: one broadcast to ${options.users} users with channels ["push", "inbox"]`);
    const both = await broadcast(stack, seeded, options, ['push', 'inbox']);
    const { rows } = await stack.db.query<{ stored: number }>(
      `SELECT COALESCE(sum(stat_inbox_stored), 0)::int AS stored FROM notifications WHERE options -> 'channels' ? 'inbox'`,
    );
    const inboxStored = rows[0].stored;
    const inboxPerSecond = inboxStored / both.delivery.fanoutSeconds;
    options.log(
      `inbox: ${inboxStored} stored at ${Math.round(inboxPerSecond)}/s, ${Math.round(both.result.deliveriesPerSecond)} deliveries/s; ${options.streams} streams`,
    );
    const streams = await measureStreams(stack, seeded, options);
    return {
      users: options.users,
      pushOnly,
      pushAndInbox: { ...both.result, inboxStored, inboxPerSecond, inboxOverProviders: inboxPerSecond / both.result.deliveriesPerSecond },
      streams,
    };
  } finally {
    await stack.stop();
  }
}
