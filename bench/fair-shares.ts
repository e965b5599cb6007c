/**
 * Fair shares between apps (docs/api.md#fair-sharing, issue 51): app B's send started while app
 * A's broadcast is being delivered, against B's send alone; single-device sends during the
 * broadcast against the same sends idle; and `dueSends` sends due at one instant. Every send is
 * iOS only, timed by its arrivals at the fake APNs (bench/README.md "Scenarios", fair-shares).
 */
import { randomBytes } from 'node:crypto';
import { quantiles, type Quantiles } from './latency';
import { rssBytes } from './lib/cpu';
import { startStack, type Stack } from './lib/stack';

export interface FairSharesOptions {
  broadcast: number;
  send: number;
  singles: number;
  dueSends: number;
  log: (line: string) => void;
}

export interface FairSharesResult {
  broadcast: number;
  send: number;
  /** B's send alone, then during A's broadcast: seconds from its POST to its last arrival. */
  idleSeconds: number;
  sharedSeconds: number;
  completionRatio: number;
  /** A's deliveries per second alone, then while B's send ran. */
  aloneRate: number;
  duringRate: number;
  rateRatio: number;
  /** POST-to-arrival ms of single-device sends, idle and during A's broadcast. */
  singleIdle: Quantiles;
  singleDuring: Quantiles;
  dueSends: number;
  /** From the instant they were due to the last one's delivery. */
  dueSeconds: number;
  /** From the instant to the last one's claim (docs/api.md#due-sends): the rest of dueSeconds is delivery. */
  dueClaimedSeconds: number;
  dueWorkerPeakRssMb: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** `count` iOS installations of one user each (`<prefix>-<n>`); their tokens, in order. */
async function seedIos(stack: Stack, appId: string, count: number, prefix: string): Promise<string[]> {
  const tokens: string[] = [];
  for (let start = 0; start < count; start += 20_000) {
    const users: string[] = [];
    const chunk: string[] = [];
    for (let n = start; n < Math.min(count, start + 20_000); n++) {
      users.push(`${prefix}-${n}`);
      chunk.push(randomBytes(32).toString('hex'));
    }
    await stack.db.query(
      `INSERT INTO installations (app_id, installation_id, platform, push_token, user_id, permission, registered_at, last_seen_at)
       SELECT $1, 'inst-' || u.user_id, 'ios', u.token, u.user_id, 'granted', now(), now() FROM unnest($2::text[], $3::text[]) AS u(user_id, token)`,
      [appId, users, chunk],
    );
    tokens.push(...chunk);
  }
  await stack.db.query('ANALYZE installations');
  return tokens;
}

export async function measureFairShares(options: FairSharesOptions): Promise<FairSharesResult> {
  const { log } = options;
  const stack = await startStack('fair-shares');
  try {
    const a = { appId: stack.appId, token: stack.token };
    const b = await stack.addApp('B');
    const c = await stack.addApp('Singles');
    log(`fair shares: seeding A ${options.broadcast}, B ${options.send}, singles ${options.singles + options.dueSends}`);
    const aTokens = new Set(await seedIos(stack, a.appId, options.broadcast, 'a'));
    const bTokens = new Set(await seedIos(stack, b.appId, options.send, 'b'));
    const cTokens = await seedIos(stack, c.appId, options.singles * 2 + options.dueSends + 1, 'c');
    await stack.startApi();
    const worker = await stack.startWorker();

    // Arrivals per app, counted and timed in the harness (the fake APNs runs here).
    let aArrived = 0;
    let bArrived = 0;
    let bLast = 0;
    const cArrived = new Map<string, number>();
    stack.apns.logTo((record) => {
      if (aTokens.has(record.token)) aArrived++;
      else if (bTokens.has(record.token)) {
        bArrived++;
        bLast = performance.now();
      } else cArrived.set(record.token, performance.now());
    }, 10_000);

    const post = async (token: string, body: Record<string, unknown>) => {
      const res = await fetch(`http://127.0.0.1:${stack.apiPort}/api/v1/notifications`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ notification: { title: 'Hi', body: 'There' }, ...body }),
      });
      if (res.status !== 202) throw new Error(`POST: ${res.status} ${await res.text()}`);
    };
    const everyone = { recipients: { all: true } };
    const waitUntil = async (done: () => boolean, what: string, timeoutMs = 1_800_000) => {
      const deadline = Date.now() + timeoutMs;
      while (!done()) {
        if (Date.now() > deadline) throw new Error(`fair shares: timed out waiting for ${what}`);
        await sleep(20);
      }
    };
    let single = 0;
    const singles = async (count: number): Promise<number[]> => {
      const times: number[] = [];
      for (let n = 0; n < count; n++, single++) {
        const started = performance.now();
        await post(c.token, { recipients: { user_ids: [`c-${single}`] } });
        await waitUntil(() => cArrived.has(cTokens[single]), 'a single-device send');
        times.push(cArrived.get(cTokens[single])! - started);
      }
      return times;
    };
    await singles(1);

    // B alone.
    let started = performance.now();
    await post(b.token, everyone);
    await waitUntil(() => bArrived >= bTokens.size, "B's send alone");
    const idleSeconds = (bLast - started) / 1000;
    log(`fair shares: B alone ${idleSeconds.toFixed(2)} s`);
    const singleIdle = quantiles(await singles(options.singles));

    // A's broadcast: its rate alone once under way, then B's send during it.
    await post(a.token, everyone);
    await waitUntil(() => aArrived >= options.broadcast * 0.05, "A's broadcast to start");
    const aloneFrom = { at: performance.now(), count: aArrived };
    await sleep(Math.max(3_000, idleSeconds * 1000));
    const aloneRate = (aArrived - aloneFrom.count) / ((performance.now() - aloneFrom.at) / 1000);
    bArrived = 0;
    const duringFrom = aArrived;
    started = performance.now();
    await post(b.token, everyone);
    await waitUntil(() => bArrived >= bTokens.size, "B's send during A's broadcast");
    const sharedSeconds = (bLast - started) / 1000;
    const duringRate = (aArrived - duringFrom) / sharedSeconds;
    const singleDuring = quantiles(await singles(options.singles));
    if (aArrived >= aTokens.size) log("fair shares: A's broadcast ended before the single sends did: make it larger");
    await waitUntil(() => aArrived >= aTokens.size, "A's broadcast");
    log(`fair shares: B during A ${sharedSeconds.toFixed(2)} s; A ${Math.round(aloneRate)}/s alone, ${Math.round(duringRate)}/s during`);

    // Sends due at one instant: POSTed ahead of it, each to one device.
    const dueUsers = Array.from({ length: options.dueSends }, (_, n) => options.singles * 2 + 1 + n);
    // Far enough ahead that the POSTs end before it on a loaded machine (the figure counts from the instant).
    const dueAt = Date.now() + 15_000 + options.dueSends * 15;
    let next = 0;
    await Promise.all(
      Array.from({ length: 32 }, async () => {
        while (next < dueUsers.length) {
          const user = dueUsers[next++];
          await post(c.token, { recipients: { user_ids: [`c-${user}`] }, send_at: new Date(dueAt).toISOString() });
        }
      }),
    );
    if (Date.now() >= dueAt) log('fair shares: the due sends were still being POSTed at their instant');
    else log(`fair shares: the due sends POSTed ${((dueAt - Date.now()) / 1000).toFixed(1)} s before their instant`);
    let peakRss = 0;
    const sampler = setInterval(() => (peakRss = Math.max(peakRss, rssBytes(worker.pid))), 200);
    const dueTokens = dueUsers.map((user) => cTokens[user]);
    await waitUntil(() => dueTokens.every((token) => cArrived.has(token)), 'the due sends');
    clearInterval(sampler);
    const lastDue = Math.max(...dueTokens.map((token) => cArrived.get(token)!));
    const dueSeconds = (performance.timeOrigin + lastDue - dueAt) / 1000;
    // When the last of them was claimed (and, a small send, fanned out in its group): the claims' share of the figure.
    const {
      rows: [claims],
    } = await stack.db.query<{ last: number }>(
      `SELECT extract(epoch FROM max(processing_started_at)) * 1000 AS last FROM notifications WHERE app_id = $1 AND send_at = $2`,
      [c.appId, new Date(dueAt)],
    );
    const dueClaimedSeconds = (Number(claims.last) - dueAt) / 1000;
    log(
      `fair shares: ${options.dueSends} due sends in ${dueSeconds.toFixed(1)} s (the last claimed at ${dueClaimedSeconds.toFixed(1)} s), worker peak ${(peakRss / 2 ** 20).toFixed(0)} MB`,
    );

    return {
      broadcast: options.broadcast,
      send: options.send,
      idleSeconds,
      sharedSeconds,
      completionRatio: sharedSeconds / idleSeconds,
      aloneRate,
      duringRate,
      rateRatio: duringRate / aloneRate,
      singleIdle,
      singleDuring,
      dueSends: options.dueSends,
      dueSeconds,
      dueClaimedSeconds,
      dueWorkerPeakRssMb: peakRss / 2 ** 20,
    };
  } finally {
    await stack.stop();
  }
}

/** The report's lines, with the aims. */
export function fairSharesLines(r: FairSharesResult): string {
  const aim = (ok: boolean) => (ok ? '' : '  MISSED');
  return [
    `Fair shares (B ${r.send} sends during A's ${r.broadcast}-device broadcast):`,
    `  B's completion ${r.sharedSeconds.toFixed(2)} s / ${r.idleSeconds.toFixed(2)} s alone = ${r.completionRatio.toFixed(2)} (aim <= 2.5)${aim(r.completionRatio <= 2.5)}`,
    `  A's rate ${Math.round(r.duringRate)}/s during B / ${Math.round(r.aloneRate)}/s alone = ${r.rateRatio.toFixed(2)} (aim >= 0.45)${aim(r.rateRatio >= 0.45)}`,
    `  single-device sends during A: p50 ${r.singleDuring.p50.toFixed(0)} ms, p99 ${r.singleDuring.p99.toFixed(0)} ms; idle p50 ${r.singleIdle.p50.toFixed(0)} ms, p99 ${r.singleIdle.p99.toFixed(0)} ms (x${(r.singleDuring.p50 / r.singleIdle.p50).toFixed(2)}, x${(r.singleDuring.p99 / r.singleIdle.p99).toFixed(2)})`,
    `  ${r.dueSends} sends due at one instant: last delivered ${r.dueSeconds.toFixed(1)} s after it (aim <= 30 s)${aim(r.dueSeconds <= 30)}, last claimed ${r.dueClaimedSeconds.toFixed(1)} s after it, worker peak RSS ${r.dueWorkerPeakRssMb.toFixed(0)} MB`,
  ].join('\n');
}
