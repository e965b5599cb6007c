/**
 * The worst filter the validator accepts, through the API (issue 51 "Measured", docs/api.md#count-an-audience):
 * its count alone on `installations` installations of app A, then app B's requests idle and while
 * 24 clients of A keep counting it, each hanging up after 3 s and asking again at once (as the
 * issue's hostile campaign did). B does `PUT /api/v1/installations/{id}` and
 * `GET /api/v1/installations/{id}` (its own installations), four at a time; `/health/ready` is
 * asked every 250 ms throughout. bench/README.md "Scenarios", worst-filter.
 */
import { Client } from 'pg';
import { quantiles, type Quantiles } from './latency';
import { seedAudience } from './lib/audience-seed';
import { startStack, type Stack } from './lib/stack';
import { dropTestDatabase } from '../test/support/test-database';
import { WORST_FILTER, WORST_FILTER_LABEL } from './worst-filter-shapes';

export interface WorstFilterOptions {
  installations: number;
  /** Seconds B is measured, idle and then busy. */
  seconds: number;
  /** A's concurrent counting clients (24) and when each hangs up (3 s). */
  clients?: number;
  hangUpMs?: number;
  log: (line: string) => void;
}

/** B's requests: ms, their count, and the answers that were not 2xx by status (`failed`: no answer). */
export type BRequests = Quantiles & { requests: number; errors: number; statuses: Record<string, number> };

export interface WorstFilterResult {
  installations: number;
  filter: string;
  /** The count alone, three times: ms from POST to answer, and the answers' statuses. */
  countMs: number[];
  countStatuses: number[];
  /** B's requests: ms, idle and during A's counts; non-2xx answers and failures. */
  idle: BRequests;
  busy: BRequests;
  /** /health/ready during A's counts: asked, and answers other than 200. */
  readyAsked: number;
  readyNot200: number;
  /** A's counts during the busy phase: answered (by status) and hung up on. */
  aAnswers: Record<string, number>;
  /** The count statements still running a second after A's clients stopped (pg_stat_activity). */
  countsLeftRunning: number;
  /** Seconds from A's clients stopping to the last of its count statements ending. */
  countsEndedSeconds: number;
  /** pg_stat_activity every 500 ms while B was measured busy: backends running A's count statement (mean, most; parallel workers included) and client connections (most; the harness pool's few included). */
  countStatementsMean: number;
  countStatementsMax: number;
  connectionsMax: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const B_INSTALLATIONS = 2_000;

export async function measureWorstFilter(options: WorstFilterOptions): Promise<WorstFilterResult> {
  const { log } = options;
  const clients = options.clients ?? 24;
  const hangUpMs = options.hangUpMs ?? 3_000;
  const stack = await startStack('worst-filter');
  try {
    const b = await stack.addApp('B');
    log(`worst filter: seeding A ${options.installations} installations, B ${B_INSTALLATIONS}`);
    const client = new Client({ connectionString: stack.databaseUrl });
    await client.connect();
    try {
      for (let first = 1; first <= options.installations; first += 200_000) {
        await seedAudience(client, stack.appId, Math.min(200_000, options.installations - first + 1), first);
      }
      await seedAudience(client, b.appId, B_INSTALLATIONS);
      await client.query('VACUUM ANALYZE installations');
    } finally {
      await client.end();
    }
    await stack.startApi();
    const base = `http://127.0.0.1:${stack.apiPort}`;
    const count = (signal?: AbortSignal) =>
      fetch(`${base}/api/v1/audiences/count`, {
        method: 'POST',
        headers: { authorization: `Bearer ${stack.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ recipients: { filter: WORST_FILTER } }),
        signal,
      });

    // The count alone: what one costs, or the statement time limit's 503.
    const countMs: number[] = [];
    const countStatuses: number[] = [];
    for (let i = 0; i < 3; i++) {
      const started = performance.now();
      const res = await count();
      await res.text();
      countMs.push(performance.now() - started);
      countStatuses.push(res.status);
      log(`worst filter: count alone ${res.status} in ${countMs[i].toFixed(0)} ms`);
    }

    const idle = await measureB(stack, b.token, options.seconds);
    log(`worst filter: B idle p50 ${idle.p50.toFixed(1)} ms, p99 ${idle.p99.toFixed(1)} ms, ${idle.requests} requests`);

    // A's 24 clients, each asking again as soon as its answer came or it hung up.
    let running = true;
    const aAnswers: Record<string, number> = {};
    const hostile = Array.from({ length: clients }, async () => {
      while (running) {
        try {
          const res = await count(AbortSignal.timeout(hangUpMs));
          await res.text();
          aAnswers[res.status] = (aAnswers[res.status] ?? 0) + 1;
        } catch {
          aAnswers['hung up'] = (aAnswers['hung up'] ?? 0) + 1;
        }
      }
    });
    let readyAsked = 0;
    let readyNot200 = 0;
    const ready = (async () => {
      while (running) {
        readyAsked++;
        try {
          const res = await fetch(`${base}/health/ready`, { signal: AbortSignal.timeout(10_000) });
          await res.text();
          if (res.status !== 200) readyNot200++;
        } catch {
          readyNot200++;
        }
        await sleep(250);
      }
    })();
    // Until every client has hung up once: the pool and PostgreSQL are as busy as A can make them.
    await sleep(hangUpMs + 500);
    // The database's view meanwhile, every 500 ms: count statements running, and all client connections.
    // (Matched by their start: pg_stat_activity keeps only the first track_activity_query_size bytes of a statement many KB long.)
    const sessions = { samples: 0, countsMax: 0, countsSum: 0, connectionsMax: 0 };
    const sampler = (async () => {
      while (running) {
        const {
          rows: [row],
        } = await stack.db.query<{ counts: number; connections: number }>(
          `SELECT count(*) FILTER (WHERE state = 'active' AND query LIKE 'SELECT i.platform, count(*)::int AS installations%')::int AS counts,
             count(*) FILTER (WHERE backend_type = 'client backend')::int AS connections
           FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`,
        );
        sessions.samples++;
        sessions.countsSum += row.counts;
        sessions.countsMax = Math.max(sessions.countsMax, row.counts);
        sessions.connectionsMax = Math.max(sessions.connectionsMax, row.connections);
        await sleep(500);
      }
    })();
    const busy = await measureB(stack, b.token, options.seconds);
    running = false;
    await sampler;
    await Promise.all([...hostile, ready]);
    log(`worst filter: B during A's counts p50 ${busy.p50.toFixed(1)} ms, p99 ${busy.p99.toFixed(1)} ms; A ${JSON.stringify(aAnswers)}`);
    // What A left running in PostgreSQL: counts whose clients are gone (each should have been
    // cancelled at its hang-up, or at the statement time limit). Waited for, so the database can be dropped.
    const stopped = performance.now();
    const runningCounts = async () =>
      (
        await stack.db.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND state = 'active' AND query LIKE 'SELECT i.platform, count(*)::int AS installations%' AND pid <> pg_backend_pid()`,
        )
      ).rows[0].n;
    await sleep(1_000);
    const left = { n: await runningCounts() };
    while ((await runningCounts()) > 0 && performance.now() - stopped < 300_000) await sleep(250);
    const countsEndedSeconds = (performance.now() - stopped) / 1000;
    log(`worst filter: ${left.n} counts running 1 s after A stopped, the last ended ${countsEndedSeconds.toFixed(1)} s after`);
    const result: WorstFilterResult = {
      installations: options.installations,
      filter: WORST_FILTER_LABEL,
      countMs,
      countStatuses,
      idle,
      busy,
      readyAsked,
      readyNot200,
      aAnswers,
      countsLeftRunning: left.n,
      countsEndedSeconds,
      countStatementsMean: sessions.countsSum / Math.max(1, sessions.samples),
      countStatementsMax: sessions.countsMax,
      connectionsMax: sessions.connectionsMax,
    };
    log(`worst filter: ${JSON.stringify(result)}`);
    return result;
  } finally {
    // DROP DATABASE ... WITH (FORCE) gives backends 5 s to go; counts cancelled on a starved machine can take longer.
    await stack.stop().catch(async (error: Error) => {
      log(`worst filter: ${error.message}; dropping it again in 10 s`);
      await sleep(10_000);
      await dropTestDatabase(stack.databaseName);
    });
  }
}

/** B's PUT and GET of its own installations, four in flight, for `seconds`. */
async function measureB(stack: Stack, token: string, seconds: number): Promise<BRequests> {
  const base = `http://127.0.0.1:${stack.apiPort}/api/v1/installations`;
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const times: number[] = [];
  let errors = 0;
  const statuses: Record<string, number> = {};
  let n = 0;
  const until = performance.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      while (performance.now() < until) {
        const k = n++;
        const id = `inst-${1 + (k % B_INSTALLATIONS)}`;
        const started = performance.now();
        try {
          const res =
            k % 2 === 0
              ? await fetch(`${base}/${id}`, { method: 'PUT', headers, body: JSON.stringify({ device: { app_version: `4.${k % 13}.0` } }) })
              : await fetch(`${base}/${id}`, { headers });
          await res.text();
          if (res.status >= 300) {
            errors++;
            statuses[res.status] = (statuses[res.status] ?? 0) + 1;
          }
        } catch {
          errors++;
          statuses.failed = (statuses.failed ?? 0) + 1;
        }
        times.push(performance.now() - started);
      }
    }),
  );
  return { ...quantiles(times), requests: times.length, errors, statuses };
}

/** The report's lines, with the issue's aims. */
export function worstFilterLines(r: WorstFilterResult): string {
  const aim = (ok: boolean) => (ok ? '' : '  MISSED');
  const median = [...r.countMs].sort((x, y) => x - y)[1];
  const answered = r.countStatuses.every((s) => s === 200);
  return [
    `Worst filter (${r.filter}) on ${r.installations.toLocaleString('en')} installations:`,
    `  count alone: median ${(median / 1000).toFixed(2)} s (${r.countMs.map((ms) => (ms / 1000).toFixed(2)).join(', ')}; answers ${r.countStatuses.join(', ')}) (aim <= 1 s)${aim(answered && median <= 1000)}`,
    `  app B idle: p50 ${r.idle.p50.toFixed(1)} ms, p99 ${r.idle.p99.toFixed(1)} ms (${r.idle.requests} requests, ${r.idle.errors} errors)`,
    `  app B while 24 clients of A count it (hanging up at 3 s): p50 ${r.busy.p50.toFixed(1)} ms, p99 ${r.busy.p99.toFixed(1)} ms (x${(r.busy.p99 / r.idle.p99).toFixed(1)} idle p99; ${r.busy.requests} requests, ${r.busy.errors} errors${r.busy.errors > 0 ? ` ${JSON.stringify(r.busy.statuses)}` : ''})`,
    `  /health/ready: ${r.readyAsked - r.readyNot200} of ${r.readyAsked} answered 200${aim(r.readyNot200 === 0)}; A's counts: ${Object.entries(r.aAnswers)
      .map(([k, v]) => `${v} ${k}`)
      .join(', ')}`,
    `  A's count statements meanwhile: ${r.countStatementsMean.toFixed(1)} running on average, at most ${r.countStatementsMax} (client connections at most ${r.connectionsMax}, the harness's few included); still running 1 s after its clients stopped: ${r.countsLeftRunning}, the last ended ${r.countsEndedSeconds.toFixed(1)} s after`,
  ].join('\n');
}
