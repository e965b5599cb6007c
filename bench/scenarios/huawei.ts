/**
 * npx ts-node --transpile-only bench/scenarios/index.ts huawei [--installations N --runs N]
 * A Huawei send of N installations against an FCM send of N, on one stack, alternating; prints
 * both rates and their ratio (bench/HISTORY.md "Huawei against FCM"). Issue 55 asks Huawei for at
 * least 80% of FCM's rate: Huawei takes up to 1,000 tokens per request (docs/api.md#huawei).
 */
import { randomBytes } from 'node:crypto';
import { measureDelivery, type DeliveryResult } from '../delivery';
import type { Seeded } from '../lib/seed';
import { startStack, type Stack } from '../lib/stack';

const argv = process.argv.slice(2);
const option = (flag: string, fallback: number) => (argv.includes(flag) ? Number(argv[argv.indexOf(flag) + 1]) : fallback);
const INSTALLATIONS = option('--installations', 10_000);
const RUNS = option('--runs', 3);
const log = (line: string) => process.stderr.write(`[bench:huawei] ${line}\n`);

/** N Android and N Huawei installations, each of a user of its own, inserted straight into PostgreSQL. */
async function seed(stack: Stack): Promise<Seeded> {
  const users = Array.from({ length: INSTALLATIONS }, (_, n) => `u-${n}`);
  for (const platform of ['android', 'huawei'] as const) {
    const tokens = users.map(() =>
      platform === 'android' ? `fcm-${randomBytes(24).toString('base64url')}` : `IQAAAAC${randomBytes(96).toString('base64url')}`,
    );
    await stack.db.query(
      `INSERT INTO installations (app_id, installation_id, platform, push_token, user_id, permission, registered_at, last_seen_at)
       SELECT $1, $2 || u.user_id, $2, u.token, u.user_id, 'granted', now(), now() FROM unnest($3::text[], $4::text[]) AS u(user_id, token)`,
      [stack.appId, platform, users, tokens],
    );
  }
  await stack.db.query('VACUUM ANALYZE installations');
  return { userIds: users, iosTokens: [], iosUserIds: [], installationIds: [], count: INSTALLATIONS * 2 };
}

async function main(): Promise<void> {
  log('starting fake providers, database, api and worker');
  const stack = await startStack('huawei');
  try {
    const seeded = await seed(stack);
    await stack.startApi();
    await stack.startWorker();
    const send = (platform: 'android' | 'huawei') =>
      measureDelivery(stack, seeded, { requestUsers: 10_000, timeoutMs: 600_000, recipients: { all: true }, body: { options: { platforms: [platform] } } });
    // A first send of each warms the worker (JIT, connections, tokens) and is not reported.
    await send('android');
    await send('huawei');
    const rows: [string, DeliveryResult][] = [];
    for (let run = 1; run <= RUNS; run++) {
      for (const platform of run % 2 === 1 ? (['android', 'huawei'] as const) : (['huawei', 'android'] as const)) {
        log(`${platform}, run ${run}`);
        rows.push([platform, await send(platform)]);
      }
    }
    const median = (platform: string) => {
      const rates = rows
        .filter(([p]) => p === platform)
        .map(([, r]) => r.deliveriesPerSecond)
        .sort((a, b) => a - b);
      return rates[Math.floor(rates.length / 2)];
    };
    const lines = [
      `Huawei against FCM: ${INSTALLATIONS} installations each, ${RUNS} runs alternating`,
      'send      deliveries/s  worker CPU us/delivery  accepted  provider requests',
    ];
    for (const [platform, r] of rows) {
      const requests = platform === 'huawei' ? 'batched' : String(r.perProvider.fcm ?? 0);
      lines.push(
        `${platform.padEnd(10)}${r.deliveriesPerSecond.toFixed(0).padStart(12)}${r.cpuMicrosPerDelivery.service.toFixed(0).padStart(24)}${String(r.accepted).padStart(10)}  ${requests}`,
      );
    }
    const ratio = median('huawei') / median('android');
    lines.push(
      `median: FCM ${median('android').toFixed(0)}/s, Huawei ${median('huawei').toFixed(0)}/s: Huawei at ${(ratio * 100).toFixed(0)}% of FCM (target >= 80%)`,
    );
    process.stdout.write(`${lines.join('\n')}\n`);
  } finally {
    await stack.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
