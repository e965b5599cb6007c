import { readdirSync, readFileSync } from 'node:fs';

/**
 * CPU seconds each side of a measurement used, read from /proc (Linux). On a machine where every
 * process is CPU-bound, a rate is the inverse of CPU per message, so these say whose CPU a send or
 * a request costs: the service, the harness (fake providers, load generator), PostgreSQL, Redis.
 */
export interface CpuUse {
  /** The measured service process (the worker for a send, the api for the API runs); 0 when none. */
  service: number;
  /** This process: the fake providers, autocannon or the raw `pg` loop. */
  harness: number;
  /** Every PostgreSQL process (backends, WAL writer, checkpointer, autovacuum). */
  postgres: number;
  redis: number;
}

function pidsNamed(prefix: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').startsWith(prefix)) pids.push(Number(entry));
    } catch {
      // exited while we looked
    }
  }
  return pids;
}

/**
 * With BENCH_PG_OWN_ONLY=1 the PostgreSQL side counts only the processes serving the bench's own
 * database (backends and autovacuum workers name it in their process title), not the server's
 * shared background processes nor anything else using the server: for a machine where other
 * databases are busy (CI, other people's tests). Set by startStack, and by the Parse Server runs
 * (bench/parse.ts) to Parse's own database while they run. Returns the database counted before.
 */
let ownDatabase: string | undefined;
export function countPostgresOf(databaseName: string | undefined): string | undefined {
  const before = ownDatabase;
  if (process.env.BENCH_PG_OWN_ONLY === '1') ownDatabase = databaseName;
  return before;
}

function serves(pid: number, database: string): boolean {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(` ${database} `);
  } catch {
    return false;
  }
}

function cpuOf(prefix: string): Map<number, number> {
  const own = prefix === 'postgres' ? ownDatabase : undefined;
  const pids = pidsNamed(prefix).filter((pid) => !own || serves(pid, own));
  return new Map(pids.map((pid) => [pid, cpuSeconds(pid)]));
}

/** What processes that are still alive used since `before` (one started meanwhile counts whole). */
function delta(before: Map<number, number>, after: Map<number, number>): number {
  let sum = 0;
  for (const [pid, seconds] of after) sum += seconds - (before.get(pid) ?? 0);
  return sum;
}

/** Starts counting; `stop()` returns what each side used since. */
export function cpuMeter(servicePid?: number): { stop(): CpuUse } {
  const service = servicePid ? cpuSeconds(servicePid) : 0;
  const harness = process.cpuUsage();
  const postgres = cpuOf('postgres');
  const redis = cpuOf('redis-server');
  return {
    stop() {
      const own = process.cpuUsage(harness);
      return {
        service: servicePid ? cpuSeconds(servicePid) - service : 0,
        harness: (own.user + own.system) / 1e6,
        postgres: delta(postgres, cpuOf('postgres')),
        redis: delta(redis, cpuOf('redis-server')),
      };
    },
  };
}

/** Microseconds of CPU per unit of work, per side. */
export function perUnit(cpu: CpuUse, units: number): CpuUse {
  const us = (seconds: number) => (units > 0 ? (seconds * 1e6) / units : 0);
  return { service: us(cpu.service), harness: us(cpu.harness), postgres: us(cpu.postgres), redis: us(cpu.redis) };
}

/** RSS of a process in bytes (Linux /proc), or 0 once it is gone. */
export function rssBytes(pid: number): number {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/** CPU seconds (user + system) a process has used so far (Linux /proc). */
export function cpuSeconds(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    // utime and stime are fields 14 and 15 of stat, in clock ticks (100 per second on Linux).
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}
