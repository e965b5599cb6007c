import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { api } from '../../api';
import { NotificationCells } from '../../components/NotificationCells';
import { ErrorNote, Loading, Page } from '../../components/Page';
import { NotificationBadge } from '../../components/StatusBadge';
import { Time } from '../../components/Time';
import { TableScroll } from '../../components/TableScroll';
import { describeTarget, formatNumber, formatTime, startOfNextDay } from '../../format';
import { Link, navigate, useLocation } from '../../router';
import { FunnelSteps } from './Funnel';

/** Notifications per page. */
const PAGE = 20;

/**
 * An app's notifications, newest first, 20 a page, searchable by title, with how each send went
 * (accepted, failed, skipped). The pager says where you are (the page, the rows and the days they
 * were created) and jumps to a date. The search, the date and the page are in the URL.
 */
export function NotificationsPage({ appId }: { appId: string }) {
  const { params } = useLocation();
  const search = params.get('search') ?? '';
  const cursor = params.get('cursor') ?? undefined;
  const before = params.get('before') ?? undefined;
  const pageNumber = Math.max(1, Number(params.get('page')) || 1);
  const [draft, setDraft] = useState(search);
  const [day, setDay] = useState(before ? localDay(before) : '');
  const app = useQuery({ queryKey: ['app', appId], queryFn: () => api.app(appId) });
  const page = useQuery({
    queryKey: ['notifications', appId, search, cursor, before],
    queryFn: () => api.notifications(appId, { search: search || undefined, cursor, before, limit: PAGE }),
    placeholderData: keepPreviousData,
    refetchInterval: 5_000,
  });

  /** This list's URL with `changes` on top of the current search and date. */
  const listUrl = (changes: Record<string, string | undefined>) => {
    const query = new URLSearchParams();
    for (const [name, value] of Object.entries({ search: search || undefined, before, ...changes })) if (value) query.set(name, value);
    const text = query.toString();
    return `/apps/${appId}${text ? `?${text}` : ''}`;
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    navigate(listUrl({ search: draft || undefined, before: undefined }));
  };
  const jump = (event: FormEvent) => {
    event.preventDefault();
    navigate(listUrl({ before: day ? startOfNextDay(day) : undefined }));
  };

  const rows = page.data?.data ?? [];
  const first = (pageNumber - 1) * PAGE + 1;

  return (
    <Page
      title={app.data ? `Notifications of ${app.data.name}` : 'Notifications'}
      actions={
        <>
          <Link className="button" to={`/apps/${appId}/send`}>
            New notification
          </Link>
          <Link className="button secondary" to={`/apps/${appId}/installations`}>
            Look up an installation
          </Link>
        </>
      }
    >
      <div className="toolbar">
        <form role="search" onSubmit={submit} className="inline-form">
          <label htmlFor="search">Search by title</label>
          <input id="search" type="search" value={draft} onChange={(e) => setDraft(e.target.value)} maxLength={200} />
          <button type="submit">Search</button>
        </form>
        <form onSubmit={jump} className="inline-form" aria-label="Jump to a date">
          <label htmlFor="jump-date">Created on or before</label>
          <input id="jump-date" type="date" value={day} onChange={(e) => setDay(e.target.value)} />
          <button type="submit">Go</button>
        </form>
      </div>
      {page.isPending ? (
        <Loading what="notifications" />
      ) : page.isError ? (
        <ErrorNote error={page.error} />
      ) : rows.length === 0 ? (
        <p>
          {search ? `No notification has “${search}” in its title` : 'No notifications'}
          {before ? ` created before ${formatTime(before)}` : search ? '' : ' yet'}.
        </p>
      ) : (
        <>
          <TableScroll label="Notifications table">
            <table className="data notification-list">
              <caption className="visually-hidden">Notifications, newest first</caption>
              <thead>
                <tr>
                  <th scope="col">Title</th>
                  <th scope="col">Created</th>
                  <th scope="col">Send at</th>
                  <th scope="col">Target</th>
                  <th scope="col">Status</th>
                  <th scope="col" className="num">
                    Accepted
                  </th>
                  <th scope="col" className="num">
                    Failed
                  </th>
                  <th scope="col" className="num">
                    Skipped
                  </th>
                  <th scope="col">Funnel (share of accepted)</th>
                </tr>
              </thead>
              <tbody>
                {rows.map((n) => (
                  <tr key={n.id}>
                    <NotificationCells appId={appId} n={n} />
                    <td className={n.send_at ? 'cell-send-at' : 'cell-send-at phone-hide'}>
                      {n.send_at ? <Time iso={n.send_at} /> : <span className="muted">at once</span>}
                    </td>
                    <td className="phone-hide">{describeTarget(n.target)}</td>
                    <td className="cell-status">
                      <NotificationBadge n={n} />
                    </td>
                    <td className="num phone-hide">{formatNumber(n.statistics.accepted)}</td>
                    <td className="num phone-hide">{formatNumber(n.statistics.failed)}</td>
                    <td className="num phone-hide">{formatNumber(n.statistics.skipped)}</td>
                    <td className="phone-hide">
                      <FunnelSteps statistics={n.statistics} compact />
                    </td>
                    <td className="phone-only cell-counts">
                      {formatNumber(n.statistics.accepted)} accepted · {formatNumber(n.statistics.failed)} failed · {formatNumber(n.statistics.skipped)} skipped
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableScroll>
          <nav aria-label="Pages" className="pager">
            <p className="pager-position">
              Page {formatNumber(pageNumber)}
              {before ? ` from ${formatTime(before)} back` : ''}: notifications {formatNumber(first)}–{formatNumber(first + rows.length - 1)}, created{' '}
              <Time iso={rows[0].created_at} /> to <Time iso={rows[rows.length - 1].created_at} />
            </p>
            {cursor || before ? <Link to={listUrl({ before: undefined })}>Newest</Link> : null}
            {page.data.meta.next_cursor ? (
              <Link to={listUrl({ cursor: page.data.meta.next_cursor, page: String(pageNumber + 1) })} rel="next">
                Older
              </Link>
            ) : null}
          </nav>
        </>
      )}
    </Page>
  );
}

/** The viewer's calendar day (YYYY-MM-DD) just before an instant: what the date field shows after a jump. */
function localDay(iso: string): string {
  const date = new Date(Date.parse(iso) - 1);
  return `${date.getFullYear()}-${String(date.getMonth() + 1).padStart(2, '0')}-${String(date.getDate()).padStart(2, '0')}`;
}
