import { useQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import { type Overview, api } from '../../api';
import { BarChart, OUTCOME_COLORS } from '../../components/Chart';
import { ErrorNote, Loading, Page } from '../../components/Page';
import { StatusBadge } from '../../components/StatusBadge';
import { Time } from '../../components/Time';
import { TableScroll } from '../../components/TableScroll';
import { formatMinute, formatNumber } from '../../format';

const OUTCOMES = ['accepted', 'failed', 'skipped', 'retried'] as const;
const OUTCOME_NAMES = { accepted: 'Accepted', failed: 'Failed', skipped: 'Skipped', retried: 'Retried' } as const;
const QUEUE_STATES = ['waiting', 'active', 'delayed', 'prioritized', 'failed'] as const;

/** Deliveries per minute over the last hour by outcome (from the per-minute counters), the queues, and webhook failures. */
export function OverviewPage() {
  const overview = useQuery({ queryKey: ['overview'], queryFn: api.overview, refetchInterval: 10_000 });
  return (
    <Page title="Overview">
      {overview.isPending ? <Loading what="the overview" /> : overview.isError ? <ErrorNote error={overview.error} /> : <OverviewBody data={overview.data} />}
    </Page>
  );
}

export function OverviewBody({ data }: { data: Overview }) {
  const labels = useMemo(() => data.minutes.map((m) => formatMinute(m.minute)), [data.minutes]);
  const series = useMemo(
    () => OUTCOMES.map((outcome) => ({ label: outcome, values: data.minutes.map((m) => m[outcome]), color: OUTCOME_COLORS[outcome] })),
    [data.minutes],
  );
  const totals = OUTCOMES.map((outcome) => [outcome, data.minutes.reduce((sum, m) => sum + m[outcome], 0)] as const);
  return (
    <>
      {data.every_app ? null : <p className="muted">Your apps only: the sends and webhooks of the apps you have a role on.</p>}
      <section aria-labelledby="deliveries-title">
        <h2 id="deliveries-title">Deliveries in the last hour</h2>
        <dl className="figures">
          {totals.map(([outcome, total]) => (
            <div key={outcome} className="figure">
              <dt>{OUTCOME_NAMES[outcome]}</dt>
              <dd>
                <span className="figure-value">{formatNumber(total)}</span>
              </dd>
            </div>
          ))}
        </dl>
        <BarChart title="Deliveries per minute, by outcome" labels={labels} series={series} stacked />
      </section>
      {data.every_app ? <Queues queues={data.queues} /> : null}
      <WebhookFailures webhooks={data.webhooks} />
    </>
  );
}

/** Every app's queues: shown to operators of every app only. */
function Queues({ queues }: { queues: Overview['queues'] }) {
  return (
    <section aria-labelledby="queues-title">
      <h2 id="queues-title">Queues</h2>
      {queues === null ? (
        <p role="alert" className="error">
          Redis did not answer: queue depths unknown.
        </p>
      ) : (
        <TableScroll label="Queue job counts">
          <table className="data">
            <thead>
              <tr>
                <th scope="col">Queue</th>
                {QUEUE_STATES.map((state) => (
                  <th scope="col" key={state} className="num">
                    {state}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {queues.map((queue) => (
                <tr key={queue.name}>
                  <th scope="row">{queue.name}</th>
                  {QUEUE_STATES.map((state) => (
                    <td key={state} className="num">
                      {formatNumber(queue.counts[state] ?? 0)}
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      )}
      <p className="small">
        Jobs one by one: <a href="/admin/queues">queue dashboard</a>.
      </p>
    </section>
  );
}

function WebhookFailures({ webhooks }: { webhooks: Overview['webhooks'] }) {
  return (
    <section aria-labelledby="webhooks-title">
      <h2 id="webhooks-title">Webhook failures</h2>
      <dl className="figures">
        <div className="figure">
          <dt>Given up, last {webhooks.hours} h</dt>
          <dd>
            <span className="figure-value">{formatNumber(webhooks.failed)}</span>
          </dd>
        </div>
        <div className="figure">
          <dt>Being retried</dt>
          <dd>
            <span className="figure-value">{formatNumber(webhooks.retrying)}</span>
          </dd>
        </div>
      </dl>
      {webhooks.recent.length === 0 ? (
        <p className="muted">No webhook call has failed lately.</p>
      ) : (
        <TableScroll label="Recent failed webhook calls">
          <table className="data">
            <caption className="visually-hidden">The latest webhook messages given up or being retried</caption>
            <thead>
              <tr>
                <th scope="col">Endpoint</th>
                <th scope="col">Event</th>
                <th scope="col">State</th>
                <th scope="col" className="num">
                  Attempts
                </th>
                <th scope="col">Last error</th>
                <th scope="col">Event time</th>
              </tr>
            </thead>
            <tbody>
              {webhooks.recent.map((m) => (
                <tr key={m.id}>
                  <th scope="row" className="break">
                    {m.url}
                  </th>
                  <td>{m.type}</td>
                  <td>
                    <StatusBadge status={m.status === 'failed' ? 'failed' : 'retrying'} />
                  </td>
                  <td className="num">{formatNumber(m.attempts)}</td>
                  <td>{m.last_error ?? '–'}</td>
                  <td>
                    <Time iso={m.created_at} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      )}
    </section>
  );
}
