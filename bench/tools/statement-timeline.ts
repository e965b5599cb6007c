/**
 * Reads a log of bench/tools/statement-probe.js and prints, for the last `--last` (default 300)
 * `POST /api/v1/notifications` of it, each step's share (ms from the previous event, p50 / p90 / p99)
 * and the five slowest requests step by step (bench/HISTORY.md "Claims without the flush").
 *
 *   npx ts-node --transpile-only bench/tools/statement-timeline.ts /tmp/statement-probe-<pid>.log [--last N]
 */
import { readFileSync } from 'node:fs';
import { argValue } from '../lib/args';

interface Request {
  events: [number, string][];
  total?: number;
}

const file = process.argv[2];
const LAST = argValue('--last', 300);

const requests: Request[] = [];
let current: (Request & { start: number }) | null = null;
for (const line of readFileSync(file, 'utf8').trim().split('\n')) {
  const space = line.indexOf(' ');
  const at = Number(line.slice(0, space));
  const event = line.slice(space + 1);
  if (event.startsWith('req POST /api/v1/notifications')) {
    current = { start: at, events: [] };
    requests.push(current);
  } else if (current && !event.startsWith('req ')) {
    current.events.push([at - current.start, event]);
    if (event.startsWith('res ')) {
      current.total = at - current.start;
      current = null;
    }
  }
}

const measured = requests.filter((request) => request.total !== undefined).slice(-LAST);
const steps = new Map<string, number[]>();
for (const request of measured) {
  let previous = 0;
  for (const [at, event] of request.events) {
    const step = event.slice(0, 30);
    steps.set(step, [...(steps.get(step) ?? []), at - previous]);
    previous = at;
  }
}
const at = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))].toFixed(2);
process.stdout.write(`${measured.length} requests\nstep                            count    p50    p90    p99\n`);
for (const [step, values] of steps) {
  const sorted = [...values].sort((a, b) => a - b);
  process.stdout.write(
    `${step.padEnd(32)}${String(values.length).padStart(5)} ${at(sorted, 0.5).padStart(6)} ${at(sorted, 0.9).padStart(6)} ${at(sorted, 0.99).padStart(6)}\n`,
  );
}
process.stdout.write('slowest:\n');
for (const request of [...measured].sort((a, b) => b.total! - a.total!).slice(0, 5)) {
  let previous = 0;
  const parts = request.events.map(([at, event]) => {
    const part = `${(at - previous).toFixed(1)} ${event.slice(0, 14)}`;
    previous = at;
    return part;
  });
  process.stdout.write(`${request.total!.toFixed(1)} ms: ${parts.join(' | ')}\n`);
}
