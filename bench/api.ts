import { Pool } from 'pg';
import { cpuMeter, perUnit, type CpuUse } from './lib/cpu';
import type { Seeded } from './lib/seed';
import { API_POOL_SIZE, type Stack } from './lib/stack';

// autocannon ships no types.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const autocannon = require('autocannon');

export interface HttpResult {
  requests: number;
  seconds: number;
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** Connection errors and timeouts plus non-2xx answers. */
  errors: number;
  /** CPU per answered request, in microseconds: the api process, autocannon, PostgreSQL, Redis. */
  cpuMicrosPerRequest: CpuUse;
}

export interface RawResult {
  statements: number;
  seconds: number;
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
  /** CPU per statement, in microseconds (service: 0, harness: this `pg` loop). */
  cpuMicrosPerStatement: CpuUse;
}

export const CONNECTIONS = 64;

/** How long an autocannon run lasts: a duration, or a number of requests (speed-independent). */
export type RunLength = { seconds: number } | { requests: number };

async function cannon(stack: Stack, length: RunLength, request: () => { method: string; path: string; body: string }): Promise<HttpResult> {
  const cpu = cpuMeter(stack.api?.pid);
  const result = await autocannon({
    url: `http://127.0.0.1:${stack.apiPort}`,
    connections: CONNECTIONS,
    ...('requests' in length ? { amount: length.requests } : { duration: length.seconds }),
    headers: { authorization: `Bearer ${stack.token}`, 'content-type': 'application/json' },
    requests: [{ setupRequest: (req: Record<string, unknown>) => ({ ...req, ...request() }) }],
  });
  const used = cpu.stop();
  const ok = Object.entries(result.statusCodeStats as Record<string, { count: number }>)
    .filter(([status]) => status.startsWith('2'))
    .reduce((sum, [, { count }]) => sum + Number(count), 0);
  return {
    requests: ok,
    seconds: result.duration,
    perSecond: ok / result.duration,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    errors: result.errors + result.non2xx,
    cpuMicrosPerRequest: perUnit(used, ok),
  };
}

/** PATCH random existing installations, the user id alternating so that it really changes. */
export function benchPatch(stack: Stack, seeded: Seeded, length: RunLength): Promise<HttpResult> {
  let n = 0;
  return cannon(stack, length, () => {
    const id = seeded.installationIds[Math.floor(Math.random() * seeded.installationIds.length)];
    return { method: 'PATCH', path: `/api/v1/installations/${id}`, body: JSON.stringify({ user_id: `patched-${n++ % 2}` }) };
  });
}

/** PATCH random existing installations setting three properties (docs/api.md#properties), each time to new values. */
export function benchPatchProperties(stack: Stack, seeded: Seeded, length: RunLength): Promise<HttpResult> {
  let n = 0;
  return cannon(stack, length, () => {
    const id = seeded.installationIds[Math.floor(Math.random() * seeded.installationIds.length)];
    n++;
    const properties = { plan: n % 2 ? 'pro' : 'free', purchases: n, last_purchase_at: 1_764_115_200 + n };
    return { method: 'PATCH', path: `/api/v1/installations/${id}`, body: JSON.stringify({ properties }) };
  });
}

/** POST a notification to 10 random existing users. */
export function benchPost(stack: Stack, seeded: Seeded, length: RunLength): Promise<HttpResult> {
  return cannon(stack, length, () => {
    const users = Array.from({ length: 10 }, () => seeded.userIds[Math.floor(Math.random() * seeded.userIds.length)]);
    return {
      method: 'POST',
      path: '/api/v1/notifications',
      body: JSON.stringify({ recipients: { user_ids: users }, notification: { title: 'API benchmark', body: 'Ten recipients' } }),
    };
  });
}

/**
 * The baseline for PATCH: `statements` single-row UPDATEs of the same columns straight through
 * `pg`, 64 in flight over a pool the size of the api's: what PostgreSQL itself allows.
 */
export async function benchRawUpdate(stack: Stack, seeded: Seeded, statements: number): Promise<RawResult> {
  const pool = new Pool({ connectionString: stack.databaseUrl, max: API_POOL_SIZE });
  // Connections opened up front, as the api's pool is warm.
  await Promise.all(Array.from({ length: API_POOL_SIZE }, async () => (await pool.connect()).release()));
  const latencies: number[] = [];
  let errors = 0;
  let next = 0;
  const cpu = cpuMeter();
  const started = process.hrtime.bigint();
  const lane = async () => {
    while (next < statements) {
      const n = next++;
      const id = seeded.installationIds[Math.floor(Math.random() * seeded.installationIds.length)];
      const t = process.hrtime.bigint();
      try {
        await pool.query(
          `UPDATE installations SET user_id = $3, identifier_updated_at = now(), last_seen_at = now()
           WHERE app_id = $1 AND installation_id = $2`,
          [stack.appId, id, `raw-${n % 2}`],
        );
      } catch {
        errors++;
      }
      latencies.push(Number(process.hrtime.bigint() - t) / 1e6);
    }
  };
  await Promise.all(Array.from({ length: CONNECTIONS }, lane));
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  // Before pool.end(): its backends' CPU is read while they are alive.
  const used = cpu.stop();
  await pool.end();
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
  return { statements, seconds, perSecond: statements / seconds, p50Ms: at(0.5), p99Ms: at(0.99), errors, cpuMicrosPerStatement: perUnit(used, statements) };
}

export interface ApiRuns {
  patch: HttpResult;
  rawUpdate: RawResult;
  patchProperties: HttpResult;
  post: HttpResult;
}

/** A tenth of each run, at least a second (or up to 500 requests), unmeasured, before it. */
export function warmUpLength(length: RunLength): RunLength {
  return 'requests' in length ? { requests: Math.min(length.requests, 500) } : { seconds: Math.max(1, Math.round(length.seconds / 10)) };
}

/**
 * The API runs in order (PATCH, raw UPDATE, PATCH with three properties, POST), as the full run
 * measures them, each on the same footing. First VACUUM finishes the clean-up the earlier runs left
 * (the delivery runs' rows), which autovacuum would otherwise do during some of these runs. Then
 * each run is warmed up (the api's first requests of a route pay for V8 compiling it, once per
 * process; the raw UPDATEs get a tenth as many statements), and a CHECKPOINT starts it: the first
 * change to each table page after a checkpoint writes the whole page to the WAL, so a run that
 * happened to start after one paid several times what the next paid (the raw UPDATEs' PostgreSQL
 * CPU read 190 to 707 us a statement across full runs). PATCH and the raw UPDATEs make as many
 * changes to the same random rows.
 */
export async function measureApi(stack: Stack, seeded: Seeded, length: RunLength, log: (line: string) => void): Promise<ApiRuns> {
  const started = Date.now();
  await stack.db.query('VACUUM');
  log(`api: VACUUM first, ${((Date.now() - started) / 1000).toFixed(1)} s`);
  const run = async <T>(measure: (length: RunLength) => Promise<T>, warmUp: () => Promise<unknown>): Promise<T> => {
    await warmUp();
    await stack.db.query('CHECKPOINT');
    return measure(length);
  };
  const warm = warmUpLength(length);
  log(`api: PATCH installations, ${CONNECTIONS} connections, ${'requests' in length ? `${length.requests} requests` : `${length.seconds} s`}`);
  const patch = await run(
    (l) => benchPatch(stack, seeded, l),
    () => benchPatch(stack, seeded, warm),
  );
  log(`api: ${patch.requests} PATCHes at ${Math.round(patch.perSecond)}/s; the same number of raw UPDATEs`);
  const statements = Math.max(1, patch.requests);
  const rawUpdate = await run(
    () => benchRawUpdate(stack, seeded, statements),
    () => benchRawUpdate(stack, seeded, Math.max(1, Math.round(statements / 10))),
  );
  log('api: PATCH installations with three properties');
  const patchProperties = await run(
    (l) => benchPatchProperties(stack, seeded, l),
    () => benchPatchProperties(stack, seeded, warm),
  );
  log('api: POST notifications (10 recipients)');
  const post = await run(
    (l) => benchPost(stack, seeded, l),
    () => benchPost(stack, seeded, warm),
  );
  return { patch, rawUpdate, patchProperties, post };
}
