import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { EnvironmentVariables, VARIABLES } from '../../src/config/env';
import { MetricsService } from '../../src/metrics/metrics.service';
import { QUEUE_STATES } from '../../src/metrics/queue-depth.sampler';
import { INSPECTED_QUEUES } from '../../src/queue/queue-inspector';

const ROOT = resolve(__dirname, '../..');
const DOC = readFileSync(resolve(ROOT, 'docs/operations.md'), 'utf8');

/** The body of one `## ` section of a Markdown text. */
function section(text: string, title: string): string {
  const start = text.indexOf(`\n## ${title}\n`);
  if (start < 0) throw new Error(`no "## ${title}" section`);
  const end = text.indexOf('\n## ', start + 1);
  return text.slice(start, end < 0 ? undefined : end);
}

/** Table rows whose first cell is a code span: name -> the other cells. */
function tableRows(text: string): Map<string, string[]> {
  const rows = new Map<string, string[]>();
  for (const line of text.split('\n')) {
    const match = /^\| `([^`]+)` \|(.*)\|$/.exec(line);
    if (!match) continue;
    if (rows.has(match[1])) throw new Error(`${match[1]} is listed twice`);
    rows.set(
      match[1],
      match[2].split(' | ').map((cell) => cell.trim()),
    );
  }
  return rows;
}

/**
 * Issue #4.7: docs/operations.md stays true to the code. Its environment table is the
 * configuration schema (src/config/env.ts) and its metrics table is the registry (src/metrics).
 */
describe('docs/operations.md (issue #4.7)', () => {
  it('covers topologies, scaling, metrics, backups, upgrades and the environment', () => {
    for (const title of ['Deployment topologies', 'Scaling', 'Metrics', 'Backups: what lives where', 'Upgrades and migrations', 'Environment variables']) {
      expect(() => section(DOC, title)).not.toThrow();
    }
  });

  it('lists exactly the variables of the configuration schema, with their defaults', () => {
    const rows = tableRows(section(DOC, 'Environment variables'));
    expect([...rows.keys()].sort()).toEqual([...VARIABLES].sort());
    const defaults = new EnvironmentVariables() as unknown as Record<string, string | number | boolean | undefined>;
    for (const name of VARIABLES) {
      const [cell] = rows.get(name)!;
      const value = defaults[name];
      if (value === undefined) {
        expect({ name, cell }).toEqual({ name, cell: expect.stringMatching(/^(unset|none: \*\*required\*\*)/) });
      } else {
        expect({ name, cell }).toEqual({ name, cell: expect.stringMatching(new RegExp(`^\`${String(value).replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}\``)) });
      }
    }
    expect(rows.get('APP_KEY')![0]).toMatch(/required/);
  });

  it("docs/getting-started.md's configuration table lists the same variables, with the same defaults", () => {
    const rows = tableRows(section(readFileSync(resolve(ROOT, 'docs/getting-started.md'), 'utf8'), 'Configuration'));
    expect([...rows.keys()].sort()).toEqual([...VARIABLES].sort());
    const defaults = new EnvironmentVariables() as unknown as Record<string, string | number | boolean | undefined>;
    for (const name of VARIABLES) {
      const value = defaults[name];
      if (value !== undefined) expect({ name, cell: rows.get(name)![0] }).toEqual({ name, cell: `\`${String(value)}\`` });
    }
  });

  it('lists exactly the registered pns_ metrics, with their types and labels', async () => {
    const metrics = new MetricsService();
    try {
      const registered = metrics.registry.getMetricsAsArray().filter((metric) => metric.name.startsWith('pns_'));
      const types = new Map((await metrics.registry.getMetricsAsJSON()).map((metric) => [metric.name, String(metric.type)]));
      const rows = tableRows(section(DOC, 'Metrics'));
      expect([...rows.keys()].sort()).toEqual(registered.map((metric) => metric.name).sort());
      for (const metric of registered) {
        const [type, labels] = rows.get(metric.name)!;
        const labelNames = (metric as unknown as { labelNames: string[] }).labelNames;
        expect({ name: metric.name, type, labels }).toEqual({
          name: metric.name,
          type: types.get(metric.name),
          labels: labelNames.length === 0 ? 'none' : labelNames.map((label) => `\`${label}\``).join(', '),
        });
      }
      // The queue-depth gauge's label values, as the sampler sets them.
      const queueRow = rows.get('pns_queue_jobs')!.join(' | ');
      for (const value of [...INSPECTED_QUEUES, ...QUEUE_STATES]) expect(queueRow).toContain(`\`${value}\``);
    } finally {
      metrics.registry.clear();
    }
  });

  it('points only at files that exist', () => {
    const paths = [...DOC.matchAll(/`((?:src|test|docs)\/[\w./-]+)`/g)].map((match) => match[1]);
    expect(paths.length).toBeGreaterThan(0);
    for (const path of paths) expect({ path, exists: existsSync(resolve(ROOT, path)) }).toEqual({ path, exists: true });
  });

  it("is linked from the README's Operations section", () => {
    expect(section(readFileSync(resolve(ROOT, 'README.md'), 'utf8'), 'Operations')).toContain('(docs/operations.md)');
  });
});
