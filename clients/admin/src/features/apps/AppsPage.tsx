import { useMutation, useQuery } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { type AppSummary, api } from '../../api';
import { ErrorNote, Loading, Page } from '../../components/Page';
import { TableScroll } from '../../components/TableScroll';
import { formatNumber } from '../../format';
import { Refusal } from '../app-settings/AppSettingsPage';
import { Link, navigate } from '../../router';
import { PROVIDER_LABELS } from '../../vocabulary';

/** Every app: installations by platform, which providers are configured (never a secret), sends in the last 24 hours, its settings. */
export function AppsPage() {
  const apps = useQuery({ queryKey: ['apps'], queryFn: api.apps });
  return (
    <Page title="Apps">
      {apps.isPending ? <Loading what="apps" /> : apps.isError ? <ErrorNote error={apps.error} /> : <AppsTable apps={apps.data} />}
      <CreateApp />
    </Page>
  );
}

/** Owners create an app here, then set its credentials on its settings page. */
function CreateApp() {
  const [name, setName] = useState('');
  const create = useMutation({ mutationFn: () => api.createApp(name), onSuccess: (app) => navigate(`/apps/${app.id}/settings`) });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };
  return (
    <form className="inline-form create-app" onSubmit={submit} aria-label="Create an app">
      <label htmlFor="new-app-name">New app</label>
      <input id="new-app-name" value={name} onChange={(e) => setName(e.target.value)} maxLength={255} required />
      <button type="submit" disabled={create.isPending}>
        Create app
      </button>
      {create.isError ? <Refusal error={create.error} /> : null}
    </form>
  );
}

export function AppsTable({ apps }: { apps: AppSummary[] }) {
  if (apps.length === 0)
    return (
      <p>
        No apps yet. Create one below, or with <code>npx pns apps:create --name NAME</code>.
      </p>
    );
  return (
    <TableScroll label="Apps table">
      <table className="data">
        <caption className="visually-hidden">Apps, with their installations, credentials, recent notifications and settings</caption>
        <thead>
          <tr>
            <th scope="col">App</th>
            <th scope="col" className="num">
              iOS
            </th>
            <th scope="col" className="num">
              Android
            </th>
            <th scope="col" className="num">
              Web
            </th>
            <th scope="col" className="num">
              Huawei
            </th>
            <th scope="col" className="num">
              Installations
            </th>
            <th scope="col">Credentials</th>
            <th scope="col" className="num">
              Notifications, 24 h
            </th>
            <th scope="col">Settings</th>
          </tr>
        </thead>
        <tbody>
          {apps.map((app) => (
            <tr key={app.id}>
              <th scope="row">
                <Link to={`/apps/${app.id}`}>{app.name}</Link>
                <div className="muted small mono">{app.id}</div>
              </th>
              <td className="num">{formatNumber(app.installations.ios)}</td>
              <td className="num">{formatNumber(app.installations.android)}</td>
              <td className="num">{formatNumber(app.installations.web)}</td>
              <td className="num">{formatNumber(app.installations.huawei)}</td>
              <td className="num">{formatNumber(app.installations.total)}</td>
              <td>
                <Credentials credentials={app.credentials} />
              </td>
              <td className="num">{formatNumber(app.notifications_24h)}</td>
              <td>
                <Settings settings={app.settings} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableScroll>
  );
}

function Credentials({ credentials }: { credentials: AppSummary['credentials'] }) {
  const { apns, fcm, web_push, hms } = credentials;
  return (
    <ul className="plain">
      <li>
        {PROVIDER_LABELS.apns}:{' '}
        {apns ? `${apns.topic} (${apns.production ? 'production' : 'sandbox'}, key ${apns.key_id})` : <span className="muted">not configured</span>}
      </li>
      <li>
        {PROVIDER_LABELS.fcm}: {fcm ? `project ${fcm.project_id}` : <span className="muted">not configured</span>}
      </li>
      <li>
        {PROVIDER_LABELS.web_push}: {web_push ? web_push.subject : <span className="muted">not configured</span>}
      </li>
      <li>
        {PROVIDER_LABELS.hms}: {hms ? `app ${hms.app_id}, client ${hms.client_id}` : <span className="muted">not configured</span>}
      </li>
    </ul>
  );
}

/** Frequency cap and quiet hours (they apply to marketing sends), identity verification: as `apps:settings` sets them. */
function Settings({ settings }: { settings: AppSummary['settings'] }) {
  const { frequency_cap: cap, quiet_hours: quiet } = settings;
  return (
    <ul className="plain">
      <li>Frequency cap: {cap ? `${cap.max} marketing per ${cap.hours} h` : <span className="muted">off</span>}</li>
      <li>Quiet hours: {quiet ? `${quiet.start}–${quiet.end}, device time` : <span className="muted">off</span>}</li>
      <li>Identity verification: {settings.identity_verification ? 'on' : <span className="muted">off</span>}</li>
      <li>Inbox kept: {formatNumber(settings.inbox_days)} days</li>
    </ul>
  );
}
