import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { api } from '../../api';
import { NotificationCells } from '../../components/NotificationCells';
import { ErrorNote, Loading, Page } from '../../components/Page';
import { StatusBadge } from '../../components/StatusBadge';
import { describeTarget } from '../../format';
import { Link, navigate, useLocation } from '../../router';
import { FunnelSteps } from './Funnel';

/** An app's notifications, newest first, 20 a page, searchable by title. The search and page are in the URL. */
export function NotificationsPage({ appId }: { appId: string }) {
  const { params } = useLocation();
  const search = params.get('search') ?? '';
  const cursor = params.get('cursor') ?? undefined;
  const [draft, setDraft] = useState(search);
  const app = useQuery({ queryKey: ['app', appId], queryFn: () => api.app(appId) });
  const page = useQuery({
    queryKey: ['notifications', appId, search, cursor],
    queryFn: () => api.notifications(appId, { search: search || undefined, cursor }),
    placeholderData: keepPreviousData,
    refetchInterval: 5_000,
  });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    navigate(`/apps/${appId}${draft ? `?search=${encodeURIComponent(draft)}` : ''}`);
  };

  return (
    <Page
      title={app.data ? `Notifications of ${app.data.name}` : 'Notifications'}
      actions={
        <>
          <Link className="button" to={`/apps/${appId}/send`}>
            Send a test
          </Link>
          <Link className="button secondary" to={`/apps/${appId}/installations`}>
            Look up an installation
          </Link>
        </>
      }
    >
      <form role="search" onSubmit={submit} className="inline-form">
        <label htmlFor="search">Search by title</label>
        <input id="search" type="search" value={draft} onChange={(e) => setDraft(e.target.value)} maxLength={200} />
        <button type="submit">Search</button>
      </form>
      {page.isPending ? (
        <Loading what="notifications" />
      ) : page.isError ? (
        <ErrorNote error={page.error} />
      ) : page.data.data.length === 0 ? (
        <p>{search ? `No notification has “${search}” in its title.` : 'No notifications yet.'}</p>
      ) : (
        <>
          <table className="data">
            <caption className="visually-hidden">Notifications, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Title</th>
                <th scope="col">Created</th>
                <th scope="col">Target</th>
                <th scope="col">Status</th>
                <th scope="col">Funnel (share of accepted)</th>
              </tr>
            </thead>
            <tbody>
              {page.data.data.map((n) => (
                <tr key={n.id}>
                  <NotificationCells appId={appId} n={n} />
                  <td>{describeTarget(n.target)}</td>
                  <td>
                    <StatusBadge status={n.status} />
                  </td>
                  <td>
                    <FunnelSteps statistics={n.statistics} compact />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <nav aria-label="Pages" className="pager">
            {cursor ? <Link to={`/apps/${appId}${search ? `?search=${encodeURIComponent(search)}` : ''}`}>Newest</Link> : null}
            {page.data.meta.next_cursor ? (
              <Link to={`/apps/${appId}?${new URLSearchParams({ ...(search ? { search } : {}), cursor: page.data.meta.next_cursor }).toString()}`}>Older</Link>
            ) : null}
          </nav>
        </>
      )}
    </Page>
  );
}
