import { useQuery } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { type InstallationLookup, api } from '../../api';
import { NotificationCells } from '../../components/NotificationCells';
import { ErrorNote, Loading, Page } from '../../components/Page';
import { StatusBadge } from '../../components/StatusBadge';
import { Time } from '../../components/Time';
import { TableScroll } from '../../components/TableScroll';
import { Link, navigate, useLocation } from '../../router';
import { userPath } from '../users/paths';
import { PUSH_PROVIDER_LABELS } from '../../vocabulary';
import { AudienceBrowser } from './AudienceBrowser';

type Kind = 'installation_id' | 'user_id';

/**
 * Browse the app's installations with a filter (AudienceBrowser), or look up an installation by its id, or a user's installations: their fields (never the push
 * token), tags, validity, and the latest notifications that targeted each, with what became of
 * its delivery. The query is in the URL, so a lookup can be shared.
 */
export function InstallationsPage({ appId }: { appId: string }) {
  const { params } = useLocation();
  const kind: Kind = params.has('user_id') ? 'user_id' : 'installation_id';
  const value = params.get(kind) ?? '';
  const [draftKind, setDraftKind] = useState<Kind>(kind);
  const [draft, setDraft] = useState(value);
  const app = useQuery({ queryKey: ['app', appId], queryFn: () => api.app(appId) });
  const found = useQuery({
    queryKey: ['installations', appId, kind, value],
    queryFn: () => api.installations(appId, { [kind]: value }),
    enabled: value !== '',
  });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (draft.trim()) navigate(`/apps/${appId}/installations?${new URLSearchParams({ [draftKind]: draft.trim() })}`);
  };

  return (
    <Page title={app.data ? `Installations of ${app.data.name}` : 'Installations'}>
      <form role="search" onSubmit={submit} className="inline-form">
        <label htmlFor="lookup-kind">Look up by</label>
        <select id="lookup-kind" value={draftKind} onChange={(e) => setDraftKind(e.target.value as Kind)}>
          <option value="installation_id">Installation id</option>
          <option value="user_id">User id</option>
        </select>
        <label htmlFor="lookup-value" className="visually-hidden">
          {draftKind === 'user_id' ? 'User id' : 'Installation id'}
        </label>
        <input id="lookup-value" value={draft} onChange={(e) => setDraft(e.target.value)} />
        <button type="submit">Look up</button>
      </form>
      {value === '' ? <AudienceBrowser appId={appId} /> : null}
      {kind === 'user_id' && value !== '' ? (
        <p>
          <Link to={userPath(appId, value)}>Open the page of user {value}</Link>: their preferences and inbox too.
        </p>
      ) : null}
      {value === '' ? null : found.isPending ? (
        <Loading what="installations" />
      ) : found.isError ? (
        <ErrorNote error={found.error} />
      ) : found.data.length === 0 ? (
        <p role="status">No live installation has {kind === 'user_id' ? `user id “${value}”` : `installation id “${value}”`}.</p>
      ) : (
        found.data.map((entry) => <InstallationCard key={entry.installation.id} appId={appId} entry={entry} />)
      )}
    </Page>
  );
}

/** An installation's fields, tags and latest notifications; its user id opens the user's page. */
export function InstallationCard({ appId, entry }: { appId: string; entry: InstallationLookup }) {
  const i = entry.installation;
  const device = Object.entries(i.device).filter(([, v]) => v !== null);
  return (
    <article className="card" aria-labelledby={`installation-${i.id}`}>
      <h2 id={`installation-${i.id}`} className="mono">
        {i.installation_id}
      </h2>
      <dl className="pairs">
        <dt>Platform</dt>
        <dd>{i.platform}</dd>
        <dt>Push provider</dt>
        <dd>{PUSH_PROVIDER_LABELS[i.push_provider]}</dd>
        <dt>User id</dt>
        <dd>{i.user_id === null ? '–' : <Link to={userPath(appId, i.user_id)}>{i.user_id}</Link>}</dd>
        <dt>Permission</dt>
        <dd>{i.permission}</dd>
        <dt>Validity</dt>
        <dd>
          {i.invalidated_at ? (
            <>
              <StatusBadge status="invalid" /> since <Time iso={i.invalidated_at} /> ({i.invalid_reason})
            </>
          ) : (
            <StatusBadge status="valid" />
          )}
        </dd>
        <dt>Tags</dt>
        <dd>
          {i.tags.length
            ? i.tags.map((tag) => (
                <span key={tag} className="tag">
                  {tag}
                </span>
              ))
            : '–'}
        </dd>
        <dt>Device</dt>
        <dd>{device.length ? device.map(([k, v]) => `${k} ${v}`).join(' · ') : '–'}</dd>
        <dt>Registered</dt>
        <dd>
          <Time iso={i.registered_at} />
        </dd>
        <dt>Last seen</dt>
        <dd>
          <Time iso={i.last_seen_at} />
        </dd>
      </dl>
      <h3>Latest notifications to it</h3>
      {entry.notifications.length === 0 ? (
        <p className="muted">None among the app’s 50 newest notifications.</p>
      ) : (
        <TableScroll label="Latest notifications to it">
          <table className="data">
            <thead>
              <tr>
                <th scope="col">Title</th>
                <th scope="col">Created</th>
                <th scope="col">Outcome</th>
                <th scope="col">Reason</th>
              </tr>
            </thead>
            <tbody>
              {entry.notifications.map((n) => (
                <tr key={n.id}>
                  <NotificationCells appId={appId} n={n} />
                  <td>
                    <StatusBadge status={n.delivery.status} />
                  </td>
                  <td>{n.delivery.reason ?? '–'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      )}
    </article>
  );
}
