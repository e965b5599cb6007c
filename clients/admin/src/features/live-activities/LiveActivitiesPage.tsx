import { useQuery } from '@tanstack/react-query';
import { type LiveActivities, api } from '../../api';
import { ErrorNote, Loading, Page } from '../../components/Page';
import { StatusBadge } from '../../components/StatusBadge';
import { TableScroll } from '../../components/TableScroll';
import { Time } from '../../components/Time';
import { formatNumber } from '../../format';

/**
 * An app's Live Activities (docs/api.md#live-activities): its newest activities, each with its
 * last update, and its broadcast channels, each with its last broadcast. Refreshed every 5 s, as the notifications list is.
 */
export function LiveActivitiesPage({ appId }: { appId: string }) {
  const app = useQuery({ queryKey: ['app', appId], queryFn: () => api.app(appId) });
  const list = useQuery({ queryKey: ['live-activities', appId], queryFn: () => api.liveActivities(appId), refetchInterval: 5_000 });
  return (
    <Page title={app.data ? `Live Activities of ${app.data.name}` : 'Live Activities'}>
      {list.isPending ? <Loading what="Live Activities" /> : list.isError ? <ErrorNote error={list.error} /> : <LiveActivitiesBody data={list.data} />}
    </Page>
  );
}

export function LiveActivitiesBody({ data }: { data: LiveActivities }) {
  const { activities, channels, limit } = data;
  return (
    <>
      <section aria-labelledby="activities-title">
        <h2 id="activities-title">Activities</h2>
        {activities.length === 0 ? (
          <p>No Live Activity yet.</p>
        ) : (
          <>
            {activities.length === limit ? <p className="muted">The newest {formatNumber(limit)}.</p> : null}
            <TableScroll label="Live Activities table">
              <table className="data">
                <caption className="visually-hidden">Live Activities, newest first, with their last update</caption>
                <thead>
                  <tr>
                    <th scope="col">Activity</th>
                    <th scope="col">Installation</th>
                    <th scope="col">Attributes type</th>
                    <th scope="col">Status</th>
                    <th scope="col">Started</th>
                    <th scope="col">Last update</th>
                    <th scope="col" className="num">
                      No.
                    </th>
                    <th scope="col">Update status</th>
                    <th scope="col">Accepted</th>
                  </tr>
                </thead>
                <tbody>
                  {activities.map((a) => (
                    <tr key={a.activity_id}>
                      <th scope="row" className="mono">
                        {a.activity_id}
                      </th>
                      <td className="mono">{a.installation_id}</td>
                      <td>{a.attributes_type}</td>
                      <td>
                        <StatusBadge status={a.status} />
                        {a.ended_at ? (
                          <div className="muted small">
                            <Time iso={a.ended_at} short />
                            {a.invalid_reason ? ` · ${a.invalid_reason}` : ''}
                          </div>
                        ) : null}
                      </td>
                      <td>
                        <Time iso={a.created_at} />
                      </td>
                      {a.last_update ? (
                        <>
                          <td>{a.last_update.event}</td>
                          <td className="num">{formatNumber(a.last_update.seq)}</td>
                          <td>
                            <StatusBadge status={a.last_update.status} />
                            {a.last_update.reason ? <div className="muted small">{a.last_update.reason}</div> : null}
                          </td>
                          <td>
                            <Time iso={a.last_update.created_at} />
                          </td>
                        </>
                      ) : (
                        <td colSpan={4} className="muted">
                          no update yet
                        </td>
                      )}
                    </tr>
                  ))}
                </tbody>
              </table>
            </TableScroll>
          </>
        )}
      </section>
      <section aria-labelledby="channels-title">
        <h2 id="channels-title">Broadcast channels</h2>
        {channels.length === 0 ? (
          <p>No broadcast channel.</p>
        ) : (
          <>
            <TableScroll label="Broadcast channels table">
              <table className="data">
                <caption className="visually-hidden">Broadcast channels, newest first</caption>
                <thead>
                  <tr>
                    <th scope="col">Channel</th>
                    <th scope="col">Storage</th>
                    <th scope="col">Created</th>
                    <th scope="col">Last broadcast</th>
                    <th scope="col">Broadcast status</th>
                    <th scope="col">Accepted</th>
                  </tr>
                </thead>
                <tbody>
                  {channels.map((c) => (
                    <tr key={c.id}>
                      <th scope="row" className="mono">
                        {c.id}
                      </th>
                      <td>{c.storage === 'most_recent' ? 'most recent message' : 'none'}</td>
                      <td>
                        <Time iso={c.created_at} />
                      </td>
                      {c.last_broadcast ? (
                        <>
                          <td>{c.last_broadcast.event}</td>
                          <td>
                            <StatusBadge status={c.last_broadcast.status} />
                            {c.last_broadcast.reason ? <div className="muted small">{c.last_broadcast.reason}</div> : null}
                          </td>
                          <td>
                            <Time iso={c.last_broadcast.created_at} />
                          </td>
                        </>
                      ) : (
                        <td colSpan={3} className="muted">
                          no broadcast yet
                        </td>
                      )}
                    </tr>
                  ))}
                </tbody>
              </table>
            </TableScroll>
          </>
        )}
      </section>
    </>
  );
}
