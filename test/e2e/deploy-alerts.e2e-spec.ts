import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { stringify } from 'yaml';

/**
 * Issue 50, item 5: deploy/prometheus's rules and scrape configuration pass promtool (Debian's
 * `prometheus` package ships it; .ci/run installs it), and alerts.test.yml's cases run on the rules:
 * each alert fired by one case and held quiet by another (deploy/README.md).
 */
const PROMETHEUS = resolve(__dirname, '../../deploy/prometheus');
const DASHBOARD = resolve(__dirname, '../../deploy/grafana/pns-dashboard.json');
const PROMTOOL = process.env.PROMTOOL ?? 'promtool';

function promtool(...args: string[]): { status: number | null; output: string } {
  const run = spawnSync(PROMTOOL, args, { encoding: 'utf8', timeout: 60_000 });
  if (run.error) {
    throw new Error(`${PROMTOOL} could not be run (${run.error.message}): install it with apt-get install prometheus (it ships promtool), or set PROMTOOL.`);
  }
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

describe('deploy/prometheus with promtool', () => {
  beforeAll(() => {
    expect(promtool('--version').output).toMatch(/^promtool, version \d/);
  });

  it('alerts.yml: promtool check rules', () => {
    const { status, output } = promtool('check', 'rules', join(PROMETHEUS, 'alerts.yml'));
    expect({ status, output }).toEqual({ status: 0, output: expect.stringContaining('SUCCESS: 6 rules found') });
  });

  it('alerts.test.yml: promtool test rules, every case as expected', () => {
    const { status, output } = promtool('test', 'rules', join(PROMETHEUS, 'alerts.test.yml'));
    expect({ status, output }).toEqual({ status: 0, output: expect.stringContaining('SUCCESS') });
  });

  it('prometheus.yml: promtool check config, with the rule file it names', () => {
    const { status, output } = promtool('check', 'config', join(PROMETHEUS, 'prometheus.yml'));
    expect({ status, output }).toEqual({ status: 0, output: expect.stringContaining('is valid prometheus config file syntax') });
  });

  it("the Grafana dashboard's queries are valid PromQL (as recording rules, Grafana's variables given values)", () => {
    interface Panel {
      title: string;
      targets?: { expr: string }[];
      panels?: Panel[];
    }
    const flatten = (panels: Panel[]): Panel[] => panels.flatMap((panel) => [panel, ...flatten(panel.panels ?? [])]);
    const dashboard = JSON.parse(readFileSync(DASHBOARD, 'utf8')) as { panels: Panel[] };
    const exprs = flatten(dashboard.panels).flatMap((panel) => (panel.targets ?? []).map(({ expr }) => expr));
    expect(exprs.length).toBeGreaterThan(10);
    const rules = exprs.map((expr, index) => ({ record: `pns:dashboard_query_${index}`, expr: expr.replace(/\$__rate_interval/g, '1m') }));
    const dir = mkdtempSync(join(tmpdir(), 'pns-dashboard-'));
    try {
      writeFileSync(join(dir, 'dashboard.rules.yml'), stringify({ groups: [{ name: 'dashboard', rules }] }));
      const { status, output } = promtool('check', 'rules', join(dir, 'dashboard.rules.yml'));
      expect({ status, output }).toEqual({ status: 0, output: expect.stringContaining(`SUCCESS: ${rules.length} rules found`) });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  describe('the cases catch a weakened rule', () => {
    let dir: string;
    beforeAll(() => {
      dir = mkdtempSync(join(tmpdir(), 'pns-alerts-'));
      copyFileSync(join(PROMETHEUS, 'alerts.test.yml'), join(dir, 'alerts.test.yml'));
    });
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it.each([
      // Without its `for:`, a one-scrape blip of the database pages.
      ['PnsDatabaseDown', (rules: string) => rules.replace(/(alert: PnsDatabaseDown\n(?:.*\n)*?\s+for: )2m/, '$10m')],
      // Without the growth condition, a steady lag pages.
      ['PnsQueueAgeGrowing', (rules: string) => rules.replace(/\n\s+and\n\s+max by \(queue\) \(delta\(pns_queue_oldest_job_age_seconds\[10m\]\)\) > 0/, '')],
      // Counting invalidated tokens as failures pages on routine token churn.
      ['PnsDeliveryFailureRatio', (rules: string) => rules.replace('outcome="failed"', 'outcome=~"failed|invalidated"')],
    ])('%s', (alert, weaken) => {
      const original = readFileSync(join(PROMETHEUS, 'alerts.yml'), 'utf8');
      const weakened = weaken(original);
      expect(weakened).not.toBe(original);
      writeFileSync(join(dir, 'alerts.yml'), weakened);
      const { status, output } = promtool('test', 'rules', join(dir, 'alerts.test.yml'));
      expect(status).not.toBe(0);
      expect(output).toContain(`alertname: ${alert}`);
    });
  });
});
