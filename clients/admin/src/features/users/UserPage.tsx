import { useQuery } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { type InboxMessage, type InboxState, api } from '../../api';
import { ErrorNote, Loading, Page } from '../../components/Page';
import { StatusBadge } from '../../components/StatusBadge';
import { TableScroll } from '../../components/TableScroll';
import { Time } from '../../components/Time';
import { Link, navigate } from '../../router';
import { InstallationCard } from '../installations/InstallationsPage';
import { userPath } from './paths';

const PAGE = 20;

/** The inbox's views (docs/api.md#inbox): the API's `state`, "inbox" being its default, every message not archived. */
const STATES: { value: InboxState | 'inbox'; label: string }[] = [
  { value: 'inbox', label: 'Inbox (not archived)' },
  { value: 'unread', label: 'Unread' },
  { value: 'read', label: 'Read' },
  { value: 'archived', label: 'Archived' },
  { value: 'all', label: 'All' },
];

/** Look a user up by id: their page, whether or not the app has heard of them (any user id has preferences). */
export function UserSearch({ appId, initial = '' }: { appId: string; initial?: string }) {
  const [draft, setDraft] = useState(initial);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (draft.trim()) navigate(userPath(appId, draft.trim()));
  };
  return (
    <form role="search" onSubmit={submit} className="inline-form">
      <label htmlFor="user-search">User id</label>
      <input id="user-search" value={draft} onChange={(e) => setDraft(e.target.value)} />
      <button type="submit">Open</button>
    </form>
  );
}

/** Users: a search for a user id (a user is what the app sets as `user_id`; there is no list of them). */
export function UsersPage({ appId }: { appId: string }) {
  const app = useQuery({ queryKey: ['app', appId], queryFn: () => api.app(appId) });
  return (
    <Page title={app.data ? `Users of ${app.data.name}` : 'Users'}>
      <UserSearch appId={appId} />
      <p className="muted">
        A user’s page shows their installations, their preferences (topics and channels) and their inbox. User ids on the installations page link to it.
      </p>
    </Page>
  );
}

/**
 * One user of an app (issue 52 item 5): their installations, their preferences (docs/api.md#preferences)
 * and their inbox (docs/api.md#inbox), read through /admin/api: the dashboard reads, it marks nothing.
 */
export function UserPage({ appId, userId }: { appId: string; userId: string }) {
  const app = useQuery({ queryKey: ['app', appId], queryFn: () => api.app(appId) });
  return (
    <Page title={`User ${userId}`}>
      {app.data ? <p className="muted">Of the app {app.data.name}.</p> : null}
      <UserSearch key={userId} appId={appId} initial={userId} />
      <Installations appId={appId} userId={userId} />
      <PreferencesSection appId={appId} userId={userId} />
      <Inbox appId={appId} userId={userId} />
    </Page>
  );
}

function Installations({ appId, userId }: { appId: string; userId: string }) {
  const found = useQuery({ queryKey: ['installations', appId, 'user_id', userId], queryFn: () => api.installations(appId, { user_id: userId }) });
  return (
    <section aria-labelledby="user-installations">
      <h2 id="user-installations">Installations</h2>
      {found.isPending ? (
        <Loading what="installations" />
      ) : found.isError ? (
        <ErrorNote error={found.error} />
      ) : found.data.length === 0 ? (
        <p className="muted">No live installation has this user id.</p>
      ) : (
        found.data.map((entry) => <InstallationCard key={entry.installation.id} appId={appId} entry={entry} />)
      )}
    </section>
  );
}

const onOff = (on: boolean) => (on ? 'on' : 'off');

function PreferencesSection({ appId, userId }: { appId: string; userId: string }) {
  const preferences = useQuery({ queryKey: ['preferences', appId, userId], queryFn: () => api.preferences(appId, userId) });
  const topics = Object.entries(preferences.data?.topics ?? {});
  return (
    <section aria-labelledby="user-preferences">
      <h2 id="user-preferences">Preferences</h2>
      {preferences.isPending ? (
        <Loading what="preferences" />
      ) : preferences.isError ? (
        <ErrorNote error={preferences.error} />
      ) : (
        <>
          <dl className="pairs">
            <dt>Push on marketing sends</dt>
            <dd>{onOff(preferences.data.channels.push)}</dd>
            <dt>Inbox</dt>
            <dd>{onOff(preferences.data.channels.inbox)}</dd>
          </dl>
          {topics.length === 0 ? (
            <p className="muted">
              The app has no topic. <Link to={`/apps/${appId}/topics`}>Topics</Link>
            </p>
          ) : (
            <TableScroll label="Topic subscriptions">
              <table className="data fits">
                <caption>Topic subscriptions</caption>
                <thead>
                  <tr>
                    <th scope="col">Topic</th>
                    <th scope="col">Subscribed</th>
                    <th scope="col">Because</th>
                  </tr>
                </thead>
                <tbody>
                  {topics.map(([key, choice]) => (
                    <tr key={key}>
                      <th scope="row" className="mono">
                        {key}
                      </th>
                      <td>{choice.subscribed ? 'yes' : 'no'}</td>
                      <td>{choice.source === 'user' ? 'the user’s choice' : 'the topic’s default'}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </TableScroll>
          )}
        </>
      )}
    </section>
  );
}

function Inbox({ appId, userId }: { appId: string; userId: string }) {
  const [state, setState] = useState<InboxState | 'inbox'>('inbox');
  // The cursors of the pages before this one, to go back; the current page's own cursor last.
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const cursor = cursors[cursors.length - 1];
  const page = useQuery({
    queryKey: ['inbox', appId, userId, state, cursor],
    queryFn: () => api.inbox(appId, userId, { state: state === 'inbox' ? undefined : state, limit: PAGE, cursor }),
  });
  const choose = (value: InboxState | 'inbox') => {
    setState(value);
    setCursors([undefined]);
  };
  return (
    <section aria-labelledby="user-inbox">
      <h2 id="user-inbox">Inbox</h2>
      <div className="filters">
        <div className="field">
          <label htmlFor="inbox-state">Show</label>
          <select id="inbox-state" value={state} onChange={(e) => choose(e.target.value as InboxState | 'inbox')}>
            {STATES.map((s) => (
              <option key={s.value} value={s.value}>
                {s.label}
              </option>
            ))}
          </select>
        </div>
        {page.data ? <p role="status">{page.data.meta.unread === 1 ? '1 unread message' : `${page.data.meta.unread} unread messages`}</p> : null}
      </div>
      {page.isPending ? (
        <Loading what="the inbox" />
      ) : page.isError ? (
        <ErrorNote error={page.error} />
      ) : page.data.data.length === 0 ? (
        <p className="muted">No message here.</p>
      ) : (
        <>
          <TableScroll label="Inbox messages">
            <table className="data">
              <thead>
                <tr>
                  <th scope="col">Message</th>
                  <th scope="col">State</th>
                  <th scope="col">Stored</th>
                  <th scope="col">Topic</th>
                  <th scope="col">Expires</th>
                </tr>
              </thead>
              <tbody>
                {page.data.data.map((m) => (
                  <MessageRow key={m.id} appId={appId} m={m} />
                ))}
              </tbody>
            </table>
          </TableScroll>
          <div className="pager">
            {cursors.length > 1 ? (
              <button type="button" className="secondary-button" onClick={() => setCursors(cursors.slice(0, -1))}>
                Newer messages
              </button>
            ) : null}
            {page.data.meta.next_cursor ? (
              <button type="button" className="secondary-button" onClick={() => setCursors([...cursors, page.data.meta.next_cursor ?? undefined])}>
                Older messages
              </button>
            ) : null}
          </div>
        </>
      )}
    </section>
  );
}

function MessageRow({ appId, m }: { appId: string; m: InboxMessage }) {
  return (
    <tr>
      <td>
        <Link to={`/apps/${appId}/notifications/${m.notification_id}`}>{m.title ?? '(no title)'}</Link>
        {m.body ? <div className="muted small">{m.body}</div> : null}
      </td>
      <td>
        <StatusBadge status={m.read_at ? 'read' : 'unread'} /> {m.archived_at ? <StatusBadge status="archived" /> : null}
        {m.read_at ? (
          <div className="muted small">
            read at <Time iso={m.read_at} />
          </div>
        ) : null}
      </td>
      <td>
        <Time iso={m.created_at} />
      </td>
      <td className="mono">{m.topic ?? '–'}</td>
      <td>
        <Time iso={m.expires_at} />
      </td>
    </tr>
  );
}
