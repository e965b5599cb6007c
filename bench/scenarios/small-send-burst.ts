/**
 * A burst of one-time codes (docs/api.md#small-sends): `--sends` single-device transactional
 * sends (default 600), each to its own user with one iOS device, POSTed `--in-flight` at a time
 * (default 32) to the built api, delivered by the built worker (bench/lib/stack.ts). It prints how
 * long the burst took from its first POST to the last arrival at the fake APNs, the sends per
 * second, and the p50 / p99 of each send's POST-to-arrival time (bench/HISTORY.md, "A burst of
 * one-time codes").
 *
 *   npm run build && npx ts-node --transpile-only bench/scenarios/index.ts small-send-burst [--sends N] [--in-flight N]
 */
import { quantiles } from '../latency';
import { seedInstallations } from '../lib/seed';
import { startStack } from '../lib/stack';
import { argValue } from '../lib/args';

const SENDS = argValue('--sends', 600);
const IN_FLIGHT = argValue('--in-flight', 32);

async function main(): Promise<void> {
  const stack = await startStack('small-send-burst');
  try {
    // Two installations a user, half of them iOS: one iOS device per user.
    const seeded = await seedInstallations(stack, SENDS * 2, SENDS, 'b');
    await stack.startApi();
    await stack.startWorker();
    const arrived = new Map<string, number>();
    stack.apns.logTo((record) => arrived.set(record.token, performance.now()), 10_000);
    const post = async (user: string) => {
      const res = await fetch(`http://127.0.0.1:${stack.apiPort}/api/v1/notifications`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${stack.token}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ recipients: { user_ids: [user] }, notification: { title: 'Your code', body: '123456' } }),
      });
      if (res.status !== 202) throw new Error(`POST: ${res.status} ${await res.text()}`);
    };
    // Warm-up: connections, prepared statements, the provider token.
    for (let n = 0; n < 10; n++) await post(seeded.iosUserIds[n]);
    while (arrived.size < 10) await new Promise((resolve) => setTimeout(resolve, 10));
    arrived.clear();

    const users = seeded.iosUserIds.slice(10, 10 + SENDS);
    const tokenOf = new Map(users.map((user, i) => [user, seeded.iosTokens[10 + i]]));
    const postedAt = new Map<string, number>();
    const started = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: IN_FLIGHT }, async () => {
        while (next < users.length) {
          const user = users[next++];
          postedAt.set(tokenOf.get(user)!, performance.now());
          await post(user);
        }
      }),
    );
    const posted = performance.now();
    while (arrived.size < users.length) await new Promise((resolve) => setTimeout(resolve, 10));
    const last = Math.max(...arrived.values());
    const each = [...postedAt.entries()].map(([token, at]) => arrived.get(token)! - at);
    const result = {
      sends: users.length,
      inFlight: IN_FLIGHT,
      postsSeconds: (posted - started) / 1000,
      burstSeconds: (last - started) / 1000,
      sendsPerSecond: users.length / ((last - started) / 1000),
      eachMs: quantiles(each),
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
