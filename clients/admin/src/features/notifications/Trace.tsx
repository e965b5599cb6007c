import { useInfiniteQuery } from '@tanstack/react-query';
import { type FormEvent, useEffect, useState } from 'react';
import { api } from '../../api';
import { ErrorNote, Loading } from '../../components/Page';
import { StatusBadge } from '../../components/StatusBadge';
import { Time } from '../../components/Time';
import { TableScroll } from '../../components/TableScroll';
import { formatNumber } from '../../format';
import { Link } from '../../router';
import { COMMON_REASONS, DELIVERY_STATUSES, type DeliveryStatus } from '../../vocabulary';
import { reasonMeaning, type SendKind } from './reasons';

/**
 * The per-installation trace of a notification (docs/api.md#delivery-trace), filtered by status and reason.
 * Pages are appended; they are read again whenever `revision` (the notification's progress) changes. A filtered page looks at a bounded stretch of the deliveries, so it can come
 * back short, even empty, with more to look at: the button then says so.
 */
export function Trace({ appId, id, live, revision, send }: { appId: string; id: string; live: boolean; revision?: string; send?: SendKind }) {
  const [filters, setFilters] = useState<{ status: DeliveryStatus | ''; reason: string }>({ status: '', reason: '' });
  const [status, setStatus] = useState<DeliveryStatus | ''>('');
  const [reason, setReason] = useState('');
  const trace = useInfiniteQuery({
    queryKey: ['trace', appId, id, filters],
    queryFn: ({ pageParam }) =>
      api.deliveries(appId, id, { status: filters.status || undefined, reason: filters.reason || undefined, cursor: pageParam, limit: 50 }),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.meta.next_cursor ?? undefined,
    // While it is sending, the first pages follow it.
    refetchInterval: live ? 2_000 : false,
  });

  // The notification moved on (its status or counts changed): the pages shown are read again, so a
  // trace first read before the fan-out ran does not stay empty once it has completed.
  const { refetch } = trace;
  useEffect(() => {
    if (revision !== undefined) void refetch();
  }, [revision, refetch]);

  const apply = (event: FormEvent) => {
    event.preventDefault();
    setFilters({ status, reason: reason.trim() });
  };
  const rows = trace.data?.pages.flatMap((page) => page.data) ?? [];
  // docs/api.md#variants: a send with variants names each delivery's; older servers leave it out.
  const variantOf = (d: (typeof rows)[number]) => (d as { variant?: string | null }).variant ?? null;
  const withVariants = rows.some((d) => variantOf(d) !== null);
  const filtered = filters.status !== '' || filters.reason !== '';

  return (
    <section aria-labelledby="trace-title">
      <h2 id="trace-title">Deliveries, one per installation</h2>
      <p className="muted small">Times of day in your time zone; hover one for its date and UTC.</p>
      <form className="filters" onSubmit={apply} aria-label="Filter the deliveries">
        <div className="field">
          <label htmlFor="trace-status">Status</label>
          <select id="trace-status" value={status} onChange={(e) => setStatus(e.target.value as DeliveryStatus | '')}>
            <option value="">any</option>
            {DELIVERY_STATUSES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor="trace-reason">Reason</label>
          <input id="trace-reason" list="trace-reasons" value={reason} onChange={(e) => setReason(e.target.value)} placeholder="any" />
          <datalist id="trace-reasons">
            {/* The reasons the service gives (docs/api.md#delivery-trace) and the providers' commonest; any other can be typed in. */}
            {COMMON_REASONS.map((r) => (
              <option key={r} value={r} />
            ))}
          </datalist>
        </div>
        <button type="submit">Filter</button>
      </form>
      {trace.isPending ? (
        <Loading what="deliveries" />
      ) : trace.isError ? (
        <ErrorNote error={trace.error} />
      ) : (
        <>
          <p role="status" className="muted">
            {formatNumber(rows.length)} {rows.length === 1 ? 'delivery' : 'deliveries'} shown
            {filtered
              ? ` with ${[filters.status && `status ${filters.status}`, filters.reason && `reason ${filters.reason}`].filter(Boolean).join(' and ')}`
              : ''}
            {trace.hasNextPage ? ', more to look at' : ''}.
          </p>
          {rows.length > 0 ? (
            <TableScroll label="Deliveries table">
              <table className="data">
                <caption className="visually-hidden">Deliveries of this notification</caption>
                <thead>
                  <tr>
                    <th scope="col">Installation</th>
                    <th scope="col">User</th>
                    <th scope="col">Platform</th>
                    {withVariants ? <th scope="col">Variant</th> : null}
                    <th scope="col">Status</th>
                    <th scope="col">Reason</th>
                    <th scope="col" className="num">
                      Attempts
                    </th>
                    <th scope="col">Provider message id</th>
                    <th scope="col">Scheduled for</th>
                    <th scope="col">Next attempt</th>
                    <th scope="col">Localization</th>
                    <th scope="col">Updated</th>
                    <th scope="col">Received</th>
                    <th scope="col">Displayed</th>
                    <th scope="col">Opened</th>
                  </tr>
                </thead>
                <tbody>
                  {rows.map((d) => (
                    <tr key={d.installation_id}>
                      <th scope="row" className="mono">
                        <Link to={`/apps/${appId}/installations?${new URLSearchParams({ installation_id: d.installation_id })}`}>{d.installation_id}</Link>
                      </th>
                      <td>{d.user_id ?? '–'}</td>
                      <td>{d.platform}</td>
                      {withVariants ? <td className="mono">{variantOf(d) ?? '–'}</td> : null}
                      <td>
                        <StatusBadge status={d.status} />
                      </td>
                      <td className="reason">
                        <Reason reason={d.reason} send={send} />
                      </td>
                      <td className="num">{formatNumber(d.attempts)}</td>
                      <td className="mono">{d.provider_message_id ?? '–'}</td>
                      <td>
                        <Time iso={d.scheduled_for} />
                      </td>
                      <td>
                        <Time iso={d.next_attempt_at} />
                      </td>
                      <td>{d.localization ? <span lang={d.localization}>{d.localization}</span> : <span className="muted">default</span>}</td>
                      <td>
                        <Time iso={d.updated_at} short />
                      </td>
                      <td>
                        <Time iso={d.received_at} short />
                      </td>
                      <td>
                        <Time iso={d.displayed_at} short />
                      </td>
                      <td>
                        <Time iso={d.opened_at} short />
                        {d.opened_action ? <span className="muted"> ({d.opened_action})</span> : null}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </TableScroll>
          ) : null}
          {trace.hasNextPage ? (
            <button type="button" className="secondary-button" onClick={() => void trace.fetchNextPage()} disabled={trace.isFetchingNextPage}>
              {trace.isFetchingNextPage ? 'Loading…' : filtered ? 'Look further' : 'Show more'}
            </button>
          ) : null}
        </>
      )}
    </section>
  );
}

/** A reason code, and what it means in plain words for this send (reasons.ts); a provider's rarer words are shown as they are. */
export function Reason({ reason, send }: { reason: string | null; send?: SendKind }) {
  if (reason === null) return <>–</>;
  const meaning = reasonMeaning(reason, send);
  return (
    <>
      <span className="mono">{reason}</span>
      {meaning ? <span className="reason-meaning">{meaning}</span> : null}
    </>
  );
}
