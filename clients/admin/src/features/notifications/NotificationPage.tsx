import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useMemo } from 'react';
import { type NotificationDetail, api } from '../../api';
import { BarChart, OUTCOME_COLORS } from '../../components/Chart';
import { ErrorNote, Loading, Page } from '../../components/Page';
import { NotificationBadge } from '../../components/StatusBadge';
import { Time } from '../../components/Time';
import { TableScroll } from '../../components/TableScroll';
import { describeTarget, formatMinute, formatNumber, formatRate, funnel } from '../../format';
import { Link } from '../../router';
import { FINAL_NOTIFICATION_STATUSES } from '../../vocabulary';
import { PlatformFunnels } from '../analytics/AnalyticsPage';
import { Reason, Trace } from './Trace';
import { variantsOf, VariantsSection } from './Variants';

/** A notification: content, options and schedule, statistics (numbers and charts), and a cancel button while it can be cancelled. */
export function NotificationPage({ appId, id }: { appId: string; id: string }) {
  const client = useQueryClient();
  const notification = useQuery({
    queryKey: ['notification', appId, id],
    queryFn: () => api.notification(appId, id),
    // Followed live until nothing more happens to it: final, and completed (a cancel's skips are counted until it completes).
    refetchInterval: (query) => (query.state.data && settled(query.state.data) ? false : 1_000),
  });
  const cancel = useMutation({
    mutationFn: () => api.cancel(appId, id),
    onSuccess: () => client.invalidateQueries({ queryKey: ['notification', appId, id] }),
  });

  if (notification.isPending) return <Loading what="the notification" />;
  if (notification.isError) return <ErrorNote error={notification.error} />;
  const n = notification.data;

  const confirmCancel = () => {
    if (window.confirm(`Cancel “${titleOf(n)}”? Deliveries not yet attempted will not be sent.`)) cancel.mutate();
  };

  return (
    <Page
      title={titleOf(n)}
      actions={
        <>
          <NotificationBadge n={n} />
          {n.cancelable ? (
            <button type="button" className="danger" onClick={confirmCancel} disabled={cancel.isPending}>
              {cancel.isPending ? 'Cancelling…' : 'Cancel notification'}
            </button>
          ) : null}
        </>
      }
    >
      <p className="muted">
        <Link to={`/apps/${appId}`}>All notifications of this app</Link> · id <span className="mono">{n.id}</span>
      </p>
      {cancel.isError ? <ErrorNote error={cancel.error} /> : null}
      <div className="columns">
        <Content n={n} />
        <Schedule n={n} />
      </div>
      <Statistics n={n} />
      <VariantsSection n={n} />
      <PlatformFunnels appId={appId} id={id} revision={`${n.status}:${n.statistics.accepted}:${n.statistics.opened}`} />
      <Trace
        appId={appId}
        id={id}
        send={n}
        live={!settled(n)}
        revision={`${n.status}:${n.statistics.installations}:${n.statistics.accepted + n.statistics.failed + n.statistics.skipped}`}
      />
    </Page>
  );
}

function Content({ n }: { n: NotificationDetail }) {
  const localizations = Object.entries(n.notification?.localizations ?? {});
  return (
    <section aria-labelledby="content-title" className="card">
      <h2 id="content-title">Content</h2>
      <dl className="pairs">
        <dt>Title</dt>
        <dd>{n.notification?.title ?? '–'}</dd>
        <dt>Body</dt>
        <dd>{n.notification?.body ?? '–'}</dd>
        <dt>Image URL</dt>
        <dd className="break">{n.notification?.image_url ?? '–'}</dd>
        <dt>Action URL</dt>
        <dd className="break">{n.notification?.action_url ?? '–'}</dd>
        <dt>Data</dt>
        <dd>{n.data ? <code className="break">{JSON.stringify(n.data)}</code> : '–'}</dd>
      </dl>
      {localizations.length > 0 ? (
        <TableScroll label="Localizations table">
          <table className="data">
            <caption>Localizations</caption>
            <thead>
              <tr>
                <th scope="col">Language</th>
                <th scope="col">Title</th>
                <th scope="col">Body</th>
              </tr>
            </thead>
            <tbody>
              {localizations.map(([tag, text]) => (
                <tr key={tag}>
                  <th scope="row" lang={tag}>
                    {tag}
                  </th>
                  <td lang={tag}>{text.title ?? '–'}</td>
                  <td lang={tag}>{text.body ?? '–'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      ) : (
        <p className="muted">No localizations.</p>
      )}
    </section>
  );
}

function Schedule({ n }: { n: NotificationDetail }) {
  const options = Object.entries(n.options ?? {});
  return (
    <section aria-labelledby="schedule-title" className="card">
      <h2 id="schedule-title">Options and schedule</h2>
      <dl className="pairs">
        <dt>Target</dt>
        <dd>{describeTarget(n.target)}</dd>
        <dt>Created</dt>
        <dd>
          <Time iso={n.created_at} />
        </dd>
        <dt>Send at</dt>
        <dd>{n.send_at ? <Time iso={n.send_at} /> : 'at once'}</dd>
        <dt>Started</dt>
        <dd>
          <Time iso={n.processing_started_at} />
        </dd>
        <dt>Completed</dt>
        <dd>
          <Time iso={n.completed_at} />
        </dd>
        <dt>Canceled</dt>
        <dd>
          <Time iso={n.canceled_at} />
        </dd>
        {n.failure_reason ? (
          <>
            <dt>Failed before any delivery</dt>
            <dd className="reason">
              <Reason reason={n.failure_reason} />
            </dd>
          </>
        ) : null}
        {options.map(([key, value]) => (
          <OptionPair key={key} name={key} value={value} />
        ))}
      </dl>
      {options.length === 0 ? <p className="muted">Default options.</p> : null}
    </section>
  );
}

/** Nothing more happens to it: a final status, and completed (a cancelled send completes once its rows are skipped). */
const settled = (n: NotificationDetail) => (FINAL_NOTIFICATION_STATUSES as readonly string[]).includes(n.status) && n.completed_at !== null;

/** A silent send (docs/api.md#silent-sends) has no title. */
/** A send with variants (docs/api.md#variants) may have no texts of its own: it is named by its variants. */
const titleOf = (n: NotificationDetail) => {
  if (n.notification?.title) return n.notification.title;
  const variants = variantsOf(n);
  return variants.length ? `Variants ${variants.map((v) => v.key).join(', ')}` : 'Silent send (no notification shown)';
};

/** One option as it was sent: the platform objects (apns, android, web) as their own pairs, web buttons one per line. */
function OptionPair({ name, value }: { name: string; value: unknown }) {
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    return (
      <>
        <dt>{name}</dt>
        <dd>
          <dl className="pairs" role="group" aria-label={`${name} options`}>
            {Object.entries(value as Record<string, unknown>).map(([key, inner]) => (
              <OptionPair key={key} name={key} value={inner} />
            ))}
          </dl>
        </dd>
      </>
    );
  }
  return (
    <>
      <dt>{name}</dt>
      <dd className="mono">{Array.isArray(value) ? value.map(optionItem).join(', ') : String(value)}</dd>
    </>
  );
}

/** A list item: a web button as `Title (action) → url`, anything else as itself. */
function optionItem(item: unknown): string {
  if (typeof item !== 'object' || item === null) return String(item);
  const button = item as { action?: string; title?: string; url?: string };
  return `${button.title} (${button.action})${button.url ? ` → ${button.url}` : ''}`;
}

function Statistics({ n }: { n: NotificationDetail }) {
  const s = n.statistics;
  const steps = useMemo(() => funnel(s), [s]);
  const funnelLabels = useMemo(() => steps.map((step) => step.step), [steps]);
  const funnelSeries = useMemo(() => [{ label: 'Deliveries', values: steps.map((step) => step.count), color: '#0969da' }], [steps]);
  const minuteLabels = useMemo(() => n.minutes.map((m) => formatMinute(m.minute)), [n.minutes]);
  const minuteSeries = useMemo(
    () =>
      (['accepted', 'failed', 'skipped', 'retried'] as const).map((outcome) => ({
        label: outcome,
        values: n.minutes.map((m) => m[outcome]),
        color: OUTCOME_COLORS[outcome],
      })),
    [n.minutes],
  );
  // A rate only where there is a base to take it of.
  const share = (part: number, whole: number) => (whole > 0 ? formatRate(part, whole) : undefined);
  const figures: [string, number, string?][] = [
    ['Users', s.users],
    ['Installations', s.installations],
    ['Accepted', s.accepted, share(s.accepted, s.installations)],
    ['Failed', s.failed, share(s.failed, s.installations)],
    ['Skipped', s.skipped, share(s.skipped, s.installations)],
    ['Received', s.received, share(s.received, s.accepted)],
    ['Displayed', s.displayed, share(s.displayed, s.accepted)],
    ['Opened', s.opened, share(s.opened, s.accepted)],
    // docs/api.md#inbox: only for a send with the inbox channel.
    ...(n.options?.channels?.includes('inbox')
      ? ([
          ['Inbox stored', s.inbox_stored],
          ['Inbox read', s.inbox_read, share(s.inbox_read, s.inbox_stored)],
        ] as [string, number, string?][])
      : []),
  ];
  return (
    <section aria-labelledby="statistics-title">
      <h2 id="statistics-title">Statistics</h2>
      <dl className="figures">
        {figures.map(([label, value, rate]) => (
          <div key={label} className="figure">
            <dt>{label}</dt>
            <dd>
              <span className="figure-value">{formatNumber(value)}</span>
              {rate ? <span className="figure-rate">{rate}</span> : null}
            </dd>
          </div>
        ))}
      </dl>
      <p className="muted small">
        Accepted, failed and skipped as a share of installations; received, displayed and opened of accepted; inbox read of inbox stored.
      </p>
      <div className="columns">
        <BarChart title="Funnel" labels={funnelLabels} series={funnelSeries} horizontal height={200} />
        {n.minutes.length > 0 ? (
          <BarChart title="Deliveries per minute" labels={minuteLabels} series={minuteSeries} stacked height={200} />
        ) : (
          <p className="muted">No delivery recorded yet.</p>
        )}
      </div>
    </section>
  );
}
