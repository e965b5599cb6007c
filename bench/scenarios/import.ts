/**
 * npx ts-node --transpile-only bench/scenarios/index.ts import [--lines N]
 * `pns import --from onesignal` of an N-line OneSignal export (1,000,000 by default) into a scratch
 * database, then the same file again: lines per second of each, the CLI's RSS at each progress line
 * (every 50,000 lines), its peak and its end (bench/HISTORY.md "Import"). Issue 56 asks for at least
 * 5,000 lines a second and flat memory; the re-run must create and update nothing (docs/api.md#import).
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { once } from 'node:events';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import webpush from 'web-push';
import { cpuSeconds, rssBytes } from '../lib/cpu';
import { BUILT_CLI, childEnv, TEST_APP_KEY } from '../../test/support/processes';
import { createTestDatabase, dropTestDatabase, testDatabaseName } from '../../test/support/test-database';

// The configuration is validated as a whole, APP_KEY included, although nothing here decrypts.
process.env.APP_KEY ??= TEST_APP_KEY;

const argv = process.argv.slice(2);
const option = (flag: string, fallback: number) => (argv.includes(flag) ? Number(argv[argv.indexOf(flag) + 1]) : fallback);
const LINES = option('--lines', 1_000_000);
const log = (line: string) => process.stderr.write(`[bench:import] ${line}\n`);
const mb = (bytes: number) => `${Math.round(bytes / 1024 / 1024)} MB`;

const HEADER =
  'id,identifier,session_count,language,timezone,game_version,device_os,device_type,device_model,ad_id,tags,last_active,playtime,amount_spent,created_at,invalid_identifier,badge_count,external_user_id,web_auth,web_p256';

/** Half iOS, 40% Android, 10% web with keys; two tags each, a user each; one line in 1,000 unsubscribed. */
async function writeExport(path: string): Promise<void> {
  const out = createWriteStream(path);
  const { publicKey } = webpush.generateVAPIDKeys();
  const auth = randomBytes(16).toString('base64url');
  const write = async (text: string) => {
    if (!out.write(text)) await once(out, 'drain');
  };
  await write(`${HEADER}\n`);
  let chunk = '';
  for (let n = 0; n < LINES; n++) {
    const kind = n % 10;
    const id = `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;
    const unsubscribed = n % 1000 === 999 ? 't' : 'f';
    const tags = `"{""level"":""${n % 50}"",""plan"":""${n % 3 === 0 ? 'pro' : 'free'}""}"`;
    const times = `2026-10-${String(1 + (n % 28)).padStart(2, '0')} 10:00:00,3600,0,2025-01-02 03:04:05,${unsubscribed}`;
    if (kind < 5) chunk += `${id},${n.toString(16).padStart(64, '0')},7,en,-28800,1.4.0,17.2,0,"iPhone14,2",,${tags},${times},1,user-${n},,\n`;
    else if (kind < 9) chunk += `${id},fcm-${n}-${'x'.repeat(140)},3,de,3600,2.0,14,1,Pixel 8,,${tags},${times},0,user-${n},,\n`;
    else chunk += `${id},https://fcm.googleapis.com/fcm/send/e-${n},1,fr,0,,120,5,Linux x86_64,,${tags},${times},0,user-${n},${auth},${publicKey}\n`;
    if (chunk.length > 1 << 20) {
      await write(chunk);
      chunk = '';
    }
  }
  await write(chunk);
  out.end();
  await once(out, 'finish');
}

interface Run {
  seconds: number;
  summary: Record<string, unknown>;
  rss: { at: number; bytes: number }[];
  peak: number;
  end: number;
  /** The CLI's own CPU seconds (user + system), as last read before it exited. */
  cpu: number;
}

/** The built CLI, its RSS read at each progress line and every 200 ms. */
async function runImport(url: string, appId: string, path: string): Promise<Run> {
  const started = process.hrtime.bigint();
  const child = spawn(process.execPath, [BUILT_CLI, 'import', '--app', appId, '--from', 'onesignal', path], {
    env: childEnv({ DATABASE_URL: url, APP_KEY: TEST_APP_KEY, NODE_ENV: 'production', LOG_LEVEL: 'warn' }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const pid = child.pid!;
  let stdout = '';
  let stderr = '';
  let peak = 0;
  let last = 0;
  let cpu = 0;
  const rss: Run['rss'] = [];
  const sample = () => {
    const bytes = rssBytes(pid);
    if (bytes > 0) {
      last = bytes;
      cpu = cpuSeconds(pid);
    }
    peak = Math.max(peak, bytes);
    return bytes;
  };
  const timer = setInterval(sample, 200);
  child.stdout.on('data', (data: Buffer) => (stdout += data.toString()));
  child.stderr.on('data', (data: Buffer) => {
    stderr += data.toString();
    for (const match of data.toString().matchAll(/^(\d+) lines read/gm)) rss.push({ at: Number(match[1]), bytes: sample() });
  });
  const [code] = (await once(child, 'exit')) as [number];
  clearInterval(timer);
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  if (code !== 0) throw new Error(`pns import exited ${code}: ${stderr}`);
  return { seconds, summary: JSON.parse(stdout), rss, peak, end: last, cpu };
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'pns-bench-import-'));
  const path = join(dir, 'onesignal.csv');
  const name = testDatabaseName('bench_import');
  log(`writing a ${LINES}-line OneSignal export`);
  await writeExport(path);
  log(`${mb(statSync(path).size)} written; scratch database ${name}`);
  const { url } = await createTestDatabase(name);
  const admin = new Client({ connectionString: url });
  await admin.connect();
  try {
    const [{ id: appId }] = (await admin.query(`INSERT INTO apps (name) VALUES ('bench') RETURNING id`)).rows;
    const lines = [`Import: a ${LINES}-line OneSignal export (${mb(statSync(path).size)}), pns import as built`];
    for (const label of ['first import', 're-run']) {
      log(label);
      const run = await runImport(url, appId, path);
      const { read, created, updated, unchanged, skipped_count: skipped } = run.summary as Record<string, number>;
      const rate = read / run.seconds;
      const series = run.rss.map(({ at, bytes }) => `${at / 1000}k ${mb(bytes)}`).join(', ');
      lines.push(
        `${label}: ${run.seconds.toFixed(1)} s, ${Math.round(rate)} lines/s (target >= 5,000); created ${created}, updated ${updated}, unchanged ${unchanged}, skipped ${skipped}`,
        `  the CLI's CPU: ${run.cpu.toFixed(1)} s, ${Math.round((run.cpu * 1e6) / read)} us a line (${Math.round(read / run.cpu)} lines per CPU second); load average ${loadavg()[0].toFixed(1)} on ${cpus().length} cores`,
        `  RSS at the first progress line ${mb(run.rss[0]?.bytes ?? 0)}, at the last ${mb(run.rss.at(-1)?.bytes ?? 0)}, peak ${mb(run.peak)}, end ${mb(run.end)}`,
        `  RSS by lines read: ${series}`,
      );
    }
    const [{ count }] = (await admin.query(`SELECT count(*)::int AS count FROM installations`)).rows;
    lines.push(`installations stored: ${count}`);
    process.stdout.write(`${lines.join('\n')}\n`);
  } finally {
    await admin.end();
    await dropTestDatabase(name);
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
