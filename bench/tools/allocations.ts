/**
 * What a process allocated, by function, from bench/tools/allocation-probe.js's profile:
 *
 *   npx ts-node --transpile-only bench/tools/allocations.ts /tmp/allocations-<pid>.heapprofile [lines]
 *
 * Prints the total sampled and the functions that allocated most, each as a share of it. Divide
 * the total by the deliveries of the run for bytes per delivery.
 */
import { readFileSync } from 'node:fs';

interface Node {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: Node[];
}

const [path, lines = '40'] = process.argv.slice(2);
if (!path) {
  process.stderr.write('usage: allocations.ts <heapprofile> [lines]\n');
  process.exit(2);
}
const { head } = JSON.parse(readFileSync(path, 'utf8')) as { head: Node };
const bytes = new Map<string, number>();
let total = 0;
const walk = (node: Node) => {
  const { functionName, url, lineNumber } = node.callFrame;
  const key = `${functionName || '(anonymous)'} ${url.replace(/.*\/(dist|node_modules)\//, '$1/')}:${lineNumber}`;
  bytes.set(key, (bytes.get(key) ?? 0) + node.selfSize);
  total += node.selfSize;
  node.children.forEach(walk);
};
walk(head);
const out = [`${(total / 1e6).toFixed(0)} MB sampled`];
for (const [key, size] of [...bytes].sort((a, b) => b[1] - a[1]).slice(0, Number(lines))) {
  out.push(`${((100 * size) / total).toFixed(2).padStart(6)}%  ${key}`);
}
process.stdout.write(`${out.join('\n')}\n`);
