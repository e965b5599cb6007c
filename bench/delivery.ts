import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Seeded } from './lib/seed';
import { BODY, TITLE, type ClientParams, type RateResult } from './clients';
import { cpuMeter, perUnit, rssBytes, type CpuUse } from './lib/cpu';
import type { Stack } from './lib/stack';

export type { RateResult };

export interface DeliveryResult {
  installations: number;
  requests: number;
  accepted: number;
  failed: number;
  skipped: number;
  /** First POST to the last completed_at. */
  seconds: number;
  deliveriesPerSecond: number;
  /** First POST to the last fanned_out_at: every delivery row written and every job queued. */
  fanoutSeconds: number;
  /** First to last request any fake provider received. */
  providerSeconds: number;
  /** POSTs themselves (202s), first to last. */
  postSeconds: number;
  workerCpuSeconds: number;
  workerPeakRssMb: number;
  /** CPU per delivery (accepted + failed), in microseconds: worker, fakes, PostgreSQL, Redis. */
  cpuMicrosPerDelivery: CpuUse;
  perProvider: Record<string, number>;
}

/**
 * Counts what the fakes answered and forgets the records: at a million sends, keeping every
 * request record would make the harness, not the service, the thing that runs out of memory.
 */
export class ProviderTally {
  first = Infinity;
  last = 0;
  readonly counts: Record<string, number> = { apns: 0, fcm: 0, web_push: 0, hms: 0 };
  readonly errors: Record<string, number> = {};

  constructor(private readonly stack: Stack) {}

  drain(): void {
    const take = (name: string, records: { status: number; at: Date }[], ok: number) => {
      const taken = records.splice(0, records.length);
      for (const r of taken) {
        const t = r.at.getTime();
        if (t < this.first) this.first = t;
        if (t > this.last) this.last = t;
        if (r.status === ok) this.counts[name]++;
        else this.errors[`${name} ${r.status}`] = (this.errors[`${name} ${r.status}`] ?? 0) + 1;
      }
    };
    take('apns', this.stack.apns.requests, 200);
    take('fcm', this.stack.fcm.requests, 200);
    take('web_push', this.stack.web.requests, 201);
    // Huawei takes many tokens per request: counted per token.
    for (const r of this.stack.hms.requests.splice(0, this.stack.hms.requests.length)) {
      const t = r.at.getTime();
      if (t < this.first) this.first = t;
      if (t > this.last) this.last = t;
      if (r.status === 200) this.counts.hms += r.tokens.length - r.illegal.length;
      else this.errors[`hms ${r.status}`] = (this.errors[`hms ${r.status}`] ?? 0) + r.tokens.length;
    }
  }

  get total(): number {
    return this.counts.apns + this.counts.fcm + this.counts.web_push + this.counts.hms;
  }
}

export async function postNotification(stack: Stack, userIds: string[], extra: Record<string, unknown> = {}): Promise<string> {
  return postTo(stack, { user_ids: userIds }, extra);
}

/** A send with any recipients (docs/api.md#recipients): `{"all": true}` for a broadcast. */
export async function postTo(stack: Stack, recipients: Record<string, unknown>, extra: Record<string, unknown> = {}): Promise<string> {
  const res = await fetch(`http://127.0.0.1:${stack.apiPort}/api/v1/notifications`, {
    method: 'POST',
    headers: { authorization: `Bearer ${stack.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ recipients, notification: { title: TITLE, body: BODY }, ...extra }),
  });
  const text = await res.text();
  if (res.status !== 202) throw new Error(`POST /notifications answered ${res.status}: ${text.slice(0, 500)}`);
  return JSON.parse(text).data.id;
}

export function chunk<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

interface Totals {
  open: number;
  installations: number;
  accepted: number;
  failed: number;
  skipped: number;
  last_completed: Date | null;
  last_fanned_out: Date | null;
}

export async function notificationTotals(stack: Stack, ids: string[]): Promise<Totals> {
  const { rows } = await stack.db.query<Totals>(
    `SELECT count(*) FILTER (WHERE completed_at IS NULL)::int AS open,
       COALESCE(sum(stat_installations), 0)::int AS installations, COALESCE(sum(stat_accepted), 0)::int AS accepted,
       COALESCE(sum(stat_failed), 0)::int AS failed, COALESCE(sum(stat_skipped), 0)::int AS skipped,
       max(completed_at) AS last_completed, max(fanned_out_at) AS last_fanned_out
     FROM notifications WHERE id = ANY($1::uuid[])`,
    [ids],
  );
  return rows[0];
}

/**
 * One send to every seeded user, in requests of `requestUsers` users: POSTs go out one after
 * another as fast as the API answers, then we wait for every notification's completed_at. With
 * `broadcast`, one POST to `{"all": true}` instead: every installation of the app; with `recipients`,
 * one POST to those recipients (a filter, say).
 * `onSample` is called about every 500 ms while it runs (the memory benchmark samples RSS there).
 */
export async function measureDelivery(
  stack: Stack,
  seeded: Seeded,
  options: {
    requestUsers: number;
    timeoutMs: number;
    body?: Record<string, unknown>;
    broadcast?: boolean;
    recipients?: Record<string, unknown>;
    onSample?: (processed: number) => void;
  },
): Promise<DeliveryResult> {
  const worker = stack.worker;
  if (!worker) throw new Error('the worker is not running');
  stack.resetFakes();
  const tally = new ProviderTally(stack);
  const cpu = cpuMeter(worker.pid);
  let peakRss = 0;
  const sampler = setInterval(() => {
    tally.drain();
    peakRss = Math.max(peakRss, rssBytes(worker.pid));
    options.onSample?.(tally.total);
  }, 500);
  try {
    const single = options.recipients ?? (options.broadcast ? { all: true } : undefined);
    const requests = single ? [[]] : chunk(seeded.userIds, options.requestUsers);
    const started = Date.now();
    const ids: string[] = [];
    if (single) ids.push(await postTo(stack, single, options.body));
    else for (const users of requests) ids.push(await postNotification(stack, users, options.body));
    const posted = Date.now();

    const deadline = Date.now() + options.timeoutMs;
    let totals = await notificationTotals(stack, ids);
    while (totals.open > 0) {
      if (Date.now() > deadline) {
        throw new Error(`delivery did not complete within ${options.timeoutMs} ms: ${JSON.stringify(totals)}\n${worker.output()}`);
      }
      if (!worker.alive) throw new Error(`the worker exited during the send:\n${worker.output()}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
      totals = await notificationTotals(stack, ids);
    }
    const used = cpu.stop();
    tally.drain();
    const seconds = (totals.last_completed!.getTime() - started) / 1000;
    const delivered = totals.accepted + totals.failed;
    return {
      installations: totals.installations,
      requests: requests.length,
      accepted: totals.accepted,
      failed: totals.failed,
      skipped: totals.skipped,
      seconds,
      deliveriesPerSecond: delivered / seconds,
      fanoutSeconds: (totals.last_fanned_out!.getTime() - started) / 1000,
      providerSeconds: (tally.last - tally.first) / 1000,
      postSeconds: (posted - started) / 1000,
      workerCpuSeconds: used.service,
      workerPeakRssMb: Math.max(peakRss, rssBytes(worker.pid)) / 2 ** 20,
      cpuMicrosPerDelivery: perUnit(used, delivered),
      perProvider: { ...tally.counts, ...tally.errors },
    };
  } finally {
    clearInterval(sampler);
  }
}

/**
 * Runs the ceiling or the peer client (bench/clients.ts) in a process of its own, as our worker
 * is: sharing this process's event loop with the fakes would halve what either can do.
 */
export async function measureClient(
  stack: Stack,
  kind: 'ceiling' | 'peer',
  tokens: string[],
  params: Omit<ClientParams, 'kind' | 'tokensFile' | 'baseUrl' | 'key'>,
): Promise<RateResult> {
  stack.resetFakes();
  const dir = mkdtempSync(join(tmpdir(), 'pns-bench-client-'));
  const tokensFile = join(dir, 'tokens.json');
  writeFileSync(tokensFile, JSON.stringify(tokens));
  const full: ClientParams = {
    ...params,
    kind,
    tokensFile,
    baseUrl: stack.apns.baseUrl,
    key: { keyId: stack.apnsKey.keyId, teamId: stack.apnsKey.teamId, privateKeyPem: stack.apnsKey.privateKeyPem },
  };
  // The fake keeps every request; drop them as they come, as during our own send.
  const drain = setInterval(() => stack.resetFakes(), 500);
  const cpu = cpuMeter();
  try {
    const output = await new Promise<string>((resolve, reject) => {
      const child = spawn(process.execPath, ['-r', 'ts-node/register/transpile-only', join(__dirname, 'clients.ts')], {
        env: { ...process.env, BENCH_CLIENT: JSON.stringify(full) },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
      child.on('error', reject);
      child.on('exit', (code) => (code === 0 ? resolve(stdout) : reject(new Error(`${kind} client exited ${code}: ${stderr.slice(-2000)}`))));
    });
    const result = JSON.parse(output.trim().split('\n').pop()!) as RateResult;
    // This process ran only the fakes meanwhile (and the ts-node start of the client, a constant).
    return { ...result, fakesCpuSeconds: cpu.stop().harness };
  } finally {
    clearInterval(drain);
    stack.resetFakes();
    rmSync(dir, { recursive: true, force: true });
  }
}
