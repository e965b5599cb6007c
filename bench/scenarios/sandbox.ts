/**
 * npm run bench:sandbox [-- --installations N --runs N]
 * A send through `pns sandbox` (docs/testing.md) against the same send through the bench's own
 * fakes, on the same stack, alternating; prints both rates and their ratio (bench/HISTORY.md,
 * "Through the sandbox"). Issue 33 asks the sandbox for at least 80% of the fakes' rate.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SandboxInfo } from '../../src/sandbox/sandbox';
import { BUILT_CLI, childEnv, runCli, TEST_APP_KEY, waitUntil } from '../../test/support/processes';
import { measureDelivery, type DeliveryResult } from '../delivery';
import { seedInstallations } from '../lib/seed';
import { startStack, type Stack } from '../lib/stack';

const argv = process.argv.slice(2);
const option = (flag: string, fallback: number) => (argv.includes(flag) ? Number(argv[argv.indexOf(flag) + 1]) : fallback);
const INSTALLATIONS = option('--installations', 10_000);
const RUNS = option('--runs', 2);
const log = (line: string) => process.stderr.write(`[bench:sandbox] ${line}\n`);

/** The built `pns sandbox` in a process of its own, as a developer runs it. */
async function startSandbox(dir: string): Promise<{ child: ChildProcess; info: SandboxInfo }> {
  const child = spawn(
    process.execPath,
    [BUILT_CLI, 'sandbox', '--port', '0', '--dir', dir, '--apns-topic', 'com.example.bench', '--inbox-limit', String(INSTALLATIONS)],
    {
      env: childEnv({}),
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  let stdout = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  await waitUntil(() => stdout.includes('\n'), 'the JSON line of pns sandbox', 60_000);
  return { child, info: JSON.parse(stdout.split('\n')[0]) as SandboxInfo };
}

/** The sandbox's credentials for the bench's app, and its own Web Push subscriptions for the web installations. */
async function pointAppAtSandbox(stack: Stack, info: SandboxInfo): Promise<void> {
  const env = { DATABASE_URL: stack.databaseUrl, APP_KEY: TEST_APP_KEY, NODE_ENV: 'production' };
  const result = await runCli(
    [
      'apps:credentials',
      '--app',
      stack.appId,
      '--apns-key-file',
      info.apns.key_file,
      '--apns-key-id',
      info.apns.key_id,
      '--apns-team-id',
      info.apns.team_id,
      '--apns-topic',
      info.apns.topics[0],
      '--apns-production',
      'false',
      '--fcm-service-account-file',
      info.fcm.service_account_file,
    ],
    { env },
  );
  if (result.code !== 0) throw new Error(`apps:credentials failed: ${result.stderr}`);
  const { rows } = await stack.db.query<{ id: string }>(`SELECT id FROM installations WHERE platform = 'web' ORDER BY id`);
  const subscriptions: string[] = [];
  for (const _row of rows) {
    const res = await fetch(info.web_push.subscriptions_url, { method: 'POST', body: '{}' });
    const { subscription } = (await res.json()) as { subscription: { endpoint: string; keys: unknown } };
    subscriptions.push(JSON.stringify({ endpoint: subscription.endpoint, keys: subscription.keys }));
  }
  await stack.db.query(
    `UPDATE installations i SET web_push_subscription = u.subscription::jsonb FROM unnest($1::uuid[], $2::text[]) AS u(id, subscription) WHERE i.id = u.id`,
    [rows.map((row) => row.id), subscriptions],
  );
}

async function main(): Promise<void> {
  log('starting fake providers, database, api and worker');
  const stack = await startStack('sandbox');
  const dir = mkdtempSync(join(tmpdir(), 'pns-bench-sandbox-'));
  let sandbox: ChildProcess | undefined;
  try {
    const seeded = await seedInstallations(stack, INSTALLATIONS, INSTALLATIONS);
    await stack.db.query('VACUUM ANALYZE installations');
    await stack.startApi();
    // The fakes' app credentials, kept to restore them between runs.
    const fakesCredentials = (await stack.db.query<Record<string, unknown>>(`SELECT * FROM app_credentials WHERE app_id = $1`, [stack.appId])).rows;
    const fakesWeb = await stack.db.query<{ id: string; s: string }>(`SELECT id, web_push_subscription::text AS s FROM installations WHERE platform = 'web'`);
    const started = await startSandbox(dir);
    sandbox = started.child;
    const sandboxEnv = {
      APNS_URL: started.info.env.APNS_URL,
      FCM_URL: started.info.env.FCM_URL,
      GOOGLE_TOKEN_URL: started.info.env.GOOGLE_TOKEN_URL,
      WEB_PUSH_ALLOWED_HOSTS: started.info.env.WEB_PUSH_ALLOWED_HOSTS,
      NODE_EXTRA_CA_CERTS: started.info.env.NODE_EXTRA_CA_CERTS,
    };

    const measure = (label: string) =>
      measureDelivery(stack, seeded, { requestUsers: Math.min(2_000, INSTALLATIONS), timeoutMs: 5 * 60_000 }).then((result) => {
        log(
          `${label}: ${Math.round(result.deliveriesPerSecond)} deliveries/s (${result.accepted} accepted, ${result.failed} failed, ${result.seconds.toFixed(2)} s)`,
        );
        return result;
      });
    const fakes: DeliveryResult[] = [];
    const through: DeliveryResult[] = [];
    for (let run = 0; run < RUNS; run++) {
      await stack.startWorker();
      fakes.push(await measure(`fakes, run ${run + 1}`));
      await stack.stopWorker();

      await pointAppAtSandbox(stack, started.info);
      await stack.startWorker(sandboxEnv);
      through.push(await measure(`sandbox, run ${run + 1}`));
      await stack.stopWorker();
      const inbox = (await (await fetch(`${started.info.url}/inbox`)).json()) as { data: unknown[] };
      log(`sandbox inbox holds ${inbox.data.length} pushes`);
      await fetch(`${started.info.url}/inbox`, { method: 'DELETE' });

      // Back to the fakes' credentials and subscriptions.
      await stack.db.query(`DELETE FROM app_credentials WHERE app_id = $1`, [stack.appId]);
      for (const row of fakesCredentials) {
        const columns = Object.keys(row);
        await stack.db.query(
          `INSERT INTO app_credentials (${columns.map((c) => `"${c}"`).join(', ')}) VALUES (${columns.map((_, i) => `$${i + 1}`).join(', ')})`,
          columns.map((c) => row[c]),
        );
      }
      await stack.db.query(`UPDATE installations i SET web_push_subscription = u.s::jsonb FROM unnest($1::uuid[], $2::text[]) AS u(id, s) WHERE i.id = u.id`, [
        fakesWeb.rows.map((r) => r.id),
        fakesWeb.rows.map((r) => r.s),
      ]);
    }
    const best = (results: DeliveryResult[]) => Math.max(...results.map((r) => r.deliveriesPerSecond));
    const summary = {
      installations: INSTALLATIONS,
      runs: RUNS,
      fakesDeliveriesPerSecond: fakes.map((r) => Math.round(r.deliveriesPerSecond)),
      sandboxDeliveriesPerSecond: through.map((r) => Math.round(r.deliveriesPerSecond)),
      sandboxFailed: through.map((r) => r.failed),
      ratioOfBest: Number((best(through) / best(fakes)).toFixed(3)),
    };
    process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
  } finally {
    sandbox?.kill('SIGTERM');
    await stack.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (error: Error) => {
    process.stderr.write(`bench:sandbox failed: ${error.stack ?? error.message}\n`);
    process.exit(1);
  },
);
