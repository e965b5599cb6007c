import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parse } from 'yaml';
import { PROVIDER_IDS } from '../common/vocabulary';
import { SAMPLED_QUEUES } from '../queue/queue-inspector';
import { MetricsService } from './metrics.service';

/**
 * deploy/grafana's dashboards and deploy/prometheus/alerts.yml (issue 50, item 5) query only metrics
 * this service exports: the names of the registry MetricsService builds (with the default Node.js
 * metrics and each histogram's series), plus Prometheus' own `up`.
 */
const ROOT = resolve(__dirname, '../..');
const GRAFANA = join(ROOT, 'deploy/grafana');
const PROMETHEUS = join(ROOT, 'deploy/prometheus');

/** From Prometheus itself, for each scrape target. */
const SCRAPE_METRICS = ['up'];
const PROMQL_WORDS = new Set(['by', 'without', 'on', 'ignoring', 'group_left', 'group_right', 'and', 'or', 'unless', 'offset', 'bool', 'inf', 'nan']);

/** Every metric name one PromQL expression (or Grafana's `label_values(...)`) reads. */
export function metricNames(expr: string): string[] {
  const text = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/\$\{?\w+\}?/g, '1')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ')
    .replace(/\blabel_values\(([^,]*),[^)]*\)/g, '$1');
  const names = new Set<string>();
  for (const match of text.matchAll(/(?<![\w.])[a-zA-Z_:][a-zA-Z0-9_:]*/g)) {
    const after = text.slice(match.index + match[0].length).trimStart();
    if (after.startsWith('(') || PROMQL_WORDS.has(match[0].toLowerCase())) continue;
    names.add(match[0]);
  }
  return [...names];
}

let exported: Set<string>;

/** The registry the service builds, as Prometheus stores its series. */
beforeAll(async () => {
  const metrics = new MetricsService();
  try {
    exported = new Set(SCRAPE_METRICS);
    for (const { name, type } of await metrics.registry.getMetricsAsJSON()) {
      exported.add(name);
      if (String(type) === 'histogram') for (const suffix of ['_bucket', '_sum', '_count']) exported.add(name + suffix);
      if (String(type) === 'summary') for (const suffix of ['_sum', '_count']) exported.add(name + suffix);
    }
  } finally {
    metrics.registry.clear();
  }
});

interface Panel {
  type: string;
  title: string;
  datasource?: { type: string; uid: string };
  targets?: { expr: string }[];
  panels?: Panel[];
}

interface Dashboard {
  uid: string;
  title: string;
  panels: Panel[];
  templating: { list: { name: string; type: string; query: string | { query: string } }[] };
}

const dashboards = readdirSync(GRAFANA)
  .filter((name) => name.endsWith('.json'))
  .map((name) => ({ name, dashboard: JSON.parse(readFileSync(join(GRAFANA, name), 'utf8')) as Dashboard }));

const flatten = (panels: Panel[]): Panel[] => panels.flatMap((panel) => [panel, ...flatten(panel.panels ?? [])]);

/** Each query of a dashboard, by where it is: panel title or variable name. */
function dashboardQueries(dashboard: Dashboard): { where: string; expr: string }[] {
  const panels = flatten(dashboard.panels).flatMap((panel) => (panel.targets ?? []).map(({ expr }) => ({ where: `panel "${panel.title}"`, expr })));
  const variables = dashboard.templating.list
    .filter((variable) => variable.type === 'query')
    .map((variable) => ({ where: `variable ${variable.name}`, expr: typeof variable.query === 'string' ? variable.query : variable.query.query }));
  return [...panels, ...variables];
}

interface Rule {
  alert: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

const rules = (parse(readFileSync(join(PROMETHEUS, 'alerts.yml'), 'utf8')) as { groups: { rules: Rule[] }[] }).groups.flatMap((group) => group.rules);

interface RuleTest {
  name: string;
  input_series: { series: string }[];
  alert_rule_test: { alertname: string; exp_alerts?: unknown[] }[];
}

const ruleTests = (parse(readFileSync(join(PROMETHEUS, 'alerts.test.yml'), 'utf8')) as { tests: RuleTest[] }).tests;

describe('metric names in PromQL', () => {
  it.each([
    [
      'sum by (le, provider) (rate(pns_provider_request_duration_seconds_bucket{provider=~"$provider"}[$__rate_interval]))',
      ['pns_provider_request_duration_seconds_bucket'],
    ],
    ['absent(up{job="pns-worker"} == 1)', ['up']],
    ['max by (queue) (a_b) > 300 and max by (queue) (delta(c_d[10m] offset 5m)) > 0', ['a_b', 'c_d']],
    ['label_values(pns_queue_jobs{job=~"$job"}, queue)', ['pns_queue_jobs']],
    ['histogram_quantile(0.95, sum without (instance) (rate(x_bucket[5m]))) / on (job) group_left (route) y', ['x_bucket', 'y']],
  ])('%s reads %p', (expr, names) => {
    expect(metricNames(expr)).toEqual(names);
  });
});

describe('deploy/grafana', () => {
  it('holds at least one dashboard', () => {
    expect(dashboards.map(({ name }) => name)).toContain('pns-dashboard.json');
  });

  it.each(dashboards.map(({ name, dashboard }) => [name, dashboard] as const))('%s reads only metrics the service exports', (_name, dashboard) => {
    const queries = dashboardQueries(dashboard);
    expect(queries.length).toBeGreaterThan(10);
    const unknown = queries.flatMap(({ where, expr }) =>
      metricNames(expr)
        .filter((name) => !exported.has(name))
        .map((name) => `${where}: ${name}`),
    );
    expect(unknown).toEqual([]);
  });

  it.each(dashboards.map(({ name, dashboard }) => [name, dashboard] as const))('%s asks the data source chosen in its variable', (_name, dashboard) => {
    const [source] = dashboard.templating.list.filter((variable) => variable.type === 'datasource');
    expect(source).toMatchObject({ name: 'datasource', query: 'prometheus' });
    for (const panel of flatten(dashboard.panels).filter((p) => p.type !== 'row')) {
      expect({ panel: panel.title, datasource: panel.datasource }).toEqual({ panel: panel.title, datasource: { type: 'prometheus', uid: '${datasource}' } });
    }
  });

  it('shows sends, deliveries by outcome and provider, queues, provider and API latency and errors', () => {
    const { dashboard } = dashboards.find(({ name }) => name === 'pns-dashboard.json')!;
    const exprs = dashboardQueries(dashboard).map(({ expr }) => expr);
    const reading = (name: string, ...also: RegExp[]) => exprs.filter((expr) => metricNames(expr).includes(name) && also.every((re) => re.test(expr)));
    expect(reading('pns_notifications_accepted_total')).not.toEqual([]);
    expect(reading('pns_deliveries_total', /by \(provider, outcome\)/)).not.toEqual([]);
    expect(reading('pns_queue_jobs', /by \(queue\)/)).not.toEqual([]);
    expect(reading('pns_queue_oldest_job_age_seconds', /by \(queue\)/)).not.toEqual([]);
    expect(reading('pns_provider_request_duration_seconds_bucket', /histogram_quantile/)).not.toEqual([]);
    expect(reading('pns_http_request_duration_seconds_bucket', /histogram_quantile/)).not.toEqual([]);
    expect(reading('pns_http_request_duration_seconds_count', /status=~"5\.\."/)).not.toEqual([]);
  });
});

describe('deploy/prometheus/alerts.yml', () => {
  const EXPECTED = ['PnsQueueAgeGrowing', 'PnsDeliveryFailureRatio', 'PnsProvider5xx', 'PnsWorkerAbsent', 'PnsDatabaseDown', 'PnsRedisDown'];

  it('has the alerts of issue 50, each with a duration, a severity, a summary and a description', () => {
    expect(rules.map((rule) => rule.alert).sort()).toEqual([...EXPECTED].sort());
    for (const rule of rules) {
      expect({ alert: rule.alert, for: rule.for, severity: rule.labels?.severity, annotations: Object.keys(rule.annotations ?? {}).sort() }).toEqual({
        alert: rule.alert,
        for: expect.stringMatching(/^\d+m$/),
        severity: expect.stringMatching(/^(warning|critical)$/),
        annotations: ['description', 'summary'],
      });
    }
  });

  it('reads only metrics the service exports', () => {
    const unknown = rules.flatMap((rule) =>
      metricNames(rule.expr)
        .filter((name) => !exported.has(name))
        .map((name) => `${rule.alert}: ${name}`),
    );
    expect(unknown).toEqual([]);
  });

  it('has a case that fires each alert and one that holds it quiet', () => {
    for (const alert of EXPECTED) {
      const checks = ruleTests.flatMap((test) => test.alert_rule_test.filter((check) => check.alertname === alert));
      expect({ alert, fires: checks.some((check) => (check.exp_alerts ?? []).length > 0) }).toEqual({ alert, fires: true });
      expect({ alert, quiet: checks.some((check) => (check.exp_alerts ?? []).length === 0) }).toEqual({ alert, quiet: true });
    }
  });

  it('feeds its cases only series and label values the service exports', () => {
    const allowed: Record<string, readonly string[]> = {
      queue: SAMPLED_QUEUES,
      provider: PROVIDER_IDS,
      dependency: ['database', 'redis'],
      status_class: ['1xx', '2xx', '3xx', '4xx', '5xx', 'none'],
      outcome: ['accepted', 'failed', 'retried', 'invalidated', 'skipped'],
      job: ['pns-api', 'pns-worker'],
    };
    const wrong: string[] = [];
    for (const { series } of ruleTests.flatMap((test) => test.input_series)) {
      const name = /^[a-zA-Z_:][\w:]*/.exec(series)![0];
      if (!exported.has(name)) wrong.push(series);
      for (const [, label, value] of series.matchAll(/(\w+)="([^"]*)"/g)) {
        if (allowed[label] && !allowed[label].includes(value)) wrong.push(`${series}: ${label}`);
      }
    }
    expect(wrong).toEqual([]);
  });
});
