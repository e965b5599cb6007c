import { useQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import { type Overview, api } from '../../api';
import { BarChart, OUTCOME_COLORS } from '../../components/Chart';
import { ErrorNote, Loading, Page } from '../../components/Page';
import { formatMinute, formatNumber } from '../../format';

const OUTCOMES = ['accepted', 'failed', 'skipped', 'retried'] as const;
const QUEUE_STATES = ['waiting', 'active', 'delayed', 'prioritized', 'failed'] as const;

/** Deliveries per minute over the last hour by outcome (from the per-minute counters), and the queues. */
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
      <section aria-labelledby="deliveries-title">
        <h2 id="deliveries-title">Deliveries in the last hour</h2>
        <dl className="figures">
          {totals.map(([outcome, total]) => (
            <div key={outcome} className="figure">
              <dt>{outcome}</dt>
              <dd>
                <span className="figure-value">{formatNumber(total)}</span>
              </dd>
            </div>
          ))}
        </dl>
        <BarChart title="Deliveries per minute, by outcome" labels={labels} series={series} stacked />
      </section>
      <section aria-labelledby="queues-title">
        <h2 id="queues-title">Queues</h2>
        {data.queues === null ? (
          <p role="alert" className="error">
            Redis did not answer: queue depths unknown.
          </p>
        ) : (
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
              {data.queues.map((queue) => (
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
        )}
        <p className="small">
          Jobs one by one: <a href="/admin/queues">queue dashboard</a>.
        </p>
      </section>
    </>
  );
}
