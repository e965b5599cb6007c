import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { type PlatformFunnel, api } from '../../api';
import { BarChart, OUTCOME_COLORS } from '../../components/Chart';
import { ErrorNote, Loading, Page } from '../../components/Page';
import { TableScroll } from '../../components/TableScroll';
import { formatNumber, formatRate } from '../../format';
import { PERMISSIONS, PLATFORMS } from '../../vocabulary';
import { daysFrom, funnelShares, installationSeries, type Permission, sendSeries } from './analytics';

const PLATFORM_COLORS: Record<(typeof PLATFORMS)[number], string> = { ios: '#0550ae', android: '#1a7f37', web: '#8250df', huawei: '#bc4c00' };
const PERIODS = [7, 30, 90] as const;

/** A table of the numbers a chart draws, shown beside it (under it on a phone). */
function NumbersTable({ title, labels, columns }: { title: string; labels: string[]; columns: { label: string; values: (number | string)[] }[] }) {
  return (
    <TableScroll label={`Numbers of ${title}`}>
      <table className="data fits numbers" aria-label={`Numbers of ${title}`}>
        <thead>
          <tr>
            <th scope="col">Day</th>
            {columns.map((c) => (
              <th scope="col" className="num" key={c.label}>
                {c.label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {labels.map((label, i) => (
            <tr key={label}>
              <th scope="row">{label}</th>
              {columns.map((c) => (
                <td className="num" key={c.label}>
                  {typeof c.values[i] === 'number' ? formatNumber(c.values[i]) : c.values[i]}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </TableScroll>
  );
}

/**
 * An app's analytics (docs/api.md#analytics): installations per day by platform and permission,
 * sends and outcomes per day, opened rate by category; each a chart with its table beside it.
 * Days are UTC days.
 */
export function AnalyticsPage({ appId }: { appId: string }) {
  const [days, setDays] = useState<number>(30);
  const [permission, setPermission] = useState<Permission | 'any'>('any');
  const app = useQuery({ queryKey: ['app', appId], queryFn: () => api.app(appId) });
  const data = useQuery({ queryKey: ['analytics', appId, days], queryFn: () => api.analytics(appId, days), placeholderData: keepPreviousData });

  const today = new Date().toISOString().slice(0, 10);
  const labels = useMemo(() => (data.data ? daysFrom(data.data.since, today) : []), [data.data, today]);
  const installations = useMemo(() => (data.data ? installationSeries(data.data.installations, labels, permission) : []), [data.data, labels, permission]);
  const sends = useMemo(() => (data.data ? sendSeries(data.data.sends, labels) : null), [data.data, labels]);
  const installationChart = useMemo(
    () => installations.map((s) => ({ label: s.platform, values: s.values, color: PLATFORM_COLORS[s.platform] })),
    [installations],
  );
  const outcomeChart = useMemo(
    () =>
      sends
        ? [
            { label: 'accepted', values: sends.accepted, color: OUTCOME_COLORS.accepted },
            { label: 'failed', values: sends.failed, color: OUTCOME_COLORS.failed },
            { label: 'skipped', values: sends.skipped, color: OUTCOME_COLORS.skipped },
          ]
        : [],
    [sends],
  );
  const categoryChart = useMemo(
    () => [{ label: 'opened rate (%)', values: (data.data?.categories ?? []).map((c) => Math.round((c.opened_rate ?? 0) * 1000) / 10), color: '#0550ae' }],
    [data.data],
  );

  return (
    <Page title={app.data ? `Analytics of ${app.data.name}` : 'Analytics'}>
      <div className="toolbar">
        <div className="field">
          <label htmlFor="analytics-days">Period</label>
          <select id="analytics-days" value={days} onChange={(e) => setDays(Number(e.target.value))}>
            {PERIODS.map((p) => (
              <option key={p} value={p}>
                last {p} days
              </option>
            ))}
          </select>
        </div>
        <p className="muted small">Days are UTC days. Installations are counted each hour by the worker; a day shows its last count.</p>
      </div>
      {data.isPending ? (
        <Loading what="analytics" />
      ) : data.isError ? (
        <ErrorNote error={data.error} />
      ) : (
        <>
          <section aria-labelledby="installations-title" className="analytics-block">
            <h2 id="installations-title">Installations per day</h2>
            <div className="field inline">
              <label htmlFor="analytics-permission">Permission</label>
              <select id="analytics-permission" value={permission} onChange={(e) => setPermission(e.target.value as Permission | 'any')}>
                <option value="any">any</option>
                {PERMISSIONS.map((p) => (
                  <option key={p} value={p}>
                    {p}
                  </option>
                ))}
              </select>
            </div>
            <div className="chart-beside">
              <BarChart title="Installations by platform" labels={labels} series={installationChart} stacked />
              <NumbersTable title="installations" labels={labels} columns={installations.map((s) => ({ label: s.platform, values: s.values }))} />
            </div>
          </section>
          <section aria-labelledby="sends-title" className="analytics-block">
            <h2 id="sends-title">Sends and outcomes per day</h2>
            <div className="chart-beside">
              <BarChart title="Outcomes of the day’s sends" labels={labels} series={outcomeChart} stacked />
              <NumbersTable
                title="sends"
                labels={labels}
                columns={[
                  { label: 'sends', values: sends!.sends },
                  { label: 'accepted', values: sends!.accepted },
                  { label: 'failed', values: sends!.failed },
                  { label: 'skipped', values: sends!.skipped },
                  { label: 'opened', values: sends!.opened },
                ]}
              />
            </div>
          </section>
          <section aria-labelledby="categories-title" className="analytics-block">
            <h2 id="categories-title">Opened rate by category</h2>
            {data.data.categories.length === 0 ? (
              <p className="muted">No sends in this period.</p>
            ) : (
              <div className="chart-beside">
                <BarChart title="Opened rate by category" labels={data.data.categories.map((c) => c.category)} series={categoryChart} horizontal height={160} />
                <TableScroll label="Numbers of opened rate by category">
                  <table className="data fits numbers" aria-label="Numbers of opened rate by category">
                    <thead>
                      <tr>
                        <th scope="col">Category</th>
                        <th scope="col" className="num">
                          Sends
                        </th>
                        <th scope="col" className="num">
                          Accepted
                        </th>
                        <th scope="col" className="num">
                          Opened
                        </th>
                        <th scope="col" className="num">
                          Opened rate
                        </th>
                      </tr>
                    </thead>
                    <tbody>
                      {data.data.categories.map((c) => (
                        <tr key={c.category}>
                          <th scope="row">{c.category}</th>
                          <td className="num">{formatNumber(c.sends)}</td>
                          <td className="num">{formatNumber(c.accepted)}</td>
                          <td className="num">{formatNumber(c.opened)}</td>
                          <td className="num">{formatRate(c.opened, c.accepted)}</td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                </TableScroll>
              </div>
            )}
          </section>
        </>
      )}
    </Page>
  );
}

/** A send's funnel per platform, and its trace as a CSV download (docs/api.md#analytics). */
export function PlatformFunnels({ appId, id, revision }: { appId: string; id: string; revision?: string }) {
  const funnel = useQuery({ queryKey: ['funnel', appId, id, revision], queryFn: () => api.funnel(appId, id), placeholderData: keepPreviousData });
  return (
    <section aria-labelledby="platform-funnel-title">
      <h2 id="platform-funnel-title">Funnel by platform</h2>
      <p>
        <a className="button secondary" href={api.traceCsvUrl(appId, id)} download>
          Download the trace (CSV)
        </a>
      </p>
      {funnel.isPending ? (
        <Loading what="the funnel" />
      ) : funnel.isError ? (
        <ErrorNote error={funnel.error} />
      ) : funnel.data.length === 0 ? (
        <p className="muted">No deliveries yet.</p>
      ) : (
        <TableScroll label="Funnel by platform">
          <table className="data fits" aria-label="Funnel by platform">
            <thead>
              <tr>
                <th scope="col">Platform</th>
                <th scope="col" className="num">
                  Deliveries
                </th>
                <th scope="col" className="num">
                  Accepted
                </th>
                <th scope="col" className="num">
                  Received
                </th>
                <th scope="col" className="num">
                  Displayed
                </th>
                <th scope="col" className="num">
                  Opened
                </th>
                <th scope="col" className="num">
                  Failed
                </th>
                <th scope="col" className="num">
                  Skipped
                </th>
              </tr>
            </thead>
            <tbody>
              {funnel.data.map((row: PlatformFunnel) => (
                <tr key={row.platform}>
                  <th scope="row">{row.platform}</th>
                  <td className="num">{formatNumber(row.deliveries)}</td>
                  {funnelShares(row).map(({ step, count }) => (
                    <td className="num" key={step}>
                      {formatNumber(count)}
                      {step === 'accepted' ? null : <span className="muted small"> ({formatRate(count, row.accepted)})</span>}
                    </td>
                  ))}
                  <td className="num">{formatNumber(row.failed)}</td>
                  <td className="num">{formatNumber(row.skipped)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      )}
    </section>
  );
}
