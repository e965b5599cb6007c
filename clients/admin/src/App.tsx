import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { ApiError, type Session, api, everywhere, setCsrfToken } from './api';
import { ErrorNote, Loading } from './components/Page';
import { AnalyticsPage } from './features/analytics/AnalyticsPage';
import { AppSettingsPage } from './features/app-settings/AppSettingsPage';
import { AppsPage } from './features/apps/AppsPage';
import { ComposerPage } from './features/composer/ComposerPage';
import { InstallationsPage } from './features/installations/InstallationsPage';
import { LiveActivitiesPage } from './features/live-activities/LiveActivitiesPage';
import { NotificationPage } from './features/notifications/NotificationPage';
import { NotificationsPage } from './features/notifications/NotificationsPage';
import { OverviewPage } from './features/overview/OverviewPage';
import { AuditLogPage } from './features/audit/AuditLogPage';
import { DomainsPage } from './features/operators/DomainsPage';
import { OperatorsPage } from './features/operators/OperatorsPage';
import { SessionsPage } from './features/operators/SessionsPage';
import { InvitationPage } from './features/session/InvitationPage';
import { LoginPage } from './features/session/LoginPage';
import { TopicsPage } from './features/topics/TopicsPage';
import { UserPage, UsersPage } from './features/users/UserPage';
import { Link, match, useLocation } from './router';

/** The routes, under /admin. */
function Routes({ path }: { path: string }) {
  let params: Record<string, string> | null;
  if (path === '/') return <OverviewPage />;
  if (path === '/apps') return <AppsPage />;
  if (path === '/operators') return <OperatorsPage />;
  if (path === '/domains') return <DomainsPage />;
  if (path === '/sessions') return <SessionsPage />;
  if (path === '/audit-log') return <AuditLogPage />;
  if ((params = match('/apps/:app', path))) return <NotificationsPage key={params.app} appId={params.app} />;
  if ((params = match('/apps/:app/send', path))) return <ComposerPage key={params.app} appId={params.app} />;
  if ((params = match('/apps/:app/installations', path))) return <InstallationsPage key={params.app} appId={params.app} />;
  if ((params = match('/apps/:app/users', path))) return <UsersPage key={params.app} appId={params.app} />;
  if ((params = match('/apps/:app/users/:user', path))) return <UserPage key={`${params.app}/${params.user}`} appId={params.app} userId={params.user} />;
  if ((params = match('/apps/:app/topics', path))) return <TopicsPage key={params.app} appId={params.app} />;
  if ((params = match('/apps/:app/live-activities', path))) return <LiveActivitiesPage key={params.app} appId={params.app} />;
  if ((params = match('/apps/:app/analytics', path))) return <AnalyticsPage key={params.app} appId={params.app} />;
  if ((params = match('/apps/:app/settings', path))) return <AppSettingsPage key={params.app} appId={params.app} />;
  if ((params = match('/apps/:app/notifications/:id', path))) return <NotificationPage key={params.id} appId={params.app} id={params.id} />;
  return (
    <p role="alert">
      No page here. <Link to="/">Go to the overview</Link>.
    </p>
  );
}

export function App() {
  const client = useQueryClient();
  const { path } = useLocation();
  const session = useQuery({ queryKey: ['session'], queryFn: api.session, staleTime: Infinity });

  // Set while rendering, not in an effect: a page's own effects run first, and one that posts on
  // opening (the composer's count) must already send the token.
  setCsrfToken(session.data?.csrf_token ?? null);
  // A session that ended (expired, credentials changed) shows the login form again.
  useEffect(
    () =>
      client.getQueryCache().subscribe((event) => {
        const error: unknown = event.query.state.error;
        if (error instanceof ApiError && error.status === 401 && (event.query.queryKey as readonly unknown[])[0] !== 'session') {
          client.setQueryData(['session'], null);
        }
      }),
    [client],
  );

  // An invitation link works without a session: it sets the password to log in with.
  if (path === '/invitation') return <InvitationPage />;
  if (session.isPending) return <Loading what="the dashboard" />;
  if (session.isError) return <ErrorNote error={session.error} />;
  if (!session.data) {
    const onLogin = (s: Session) => {
      setCsrfToken(s.csrf_token);
      client.setQueryData(['session'], s);
    };
    return <LoginPage onLogin={onLogin} />;
  }

  const appId = match('/apps/:app(?:/.*)?', path)?.app;
  const logout = async () => {
    await api.logout();
    setCsrfToken(null);
    client.clear();
    client.setQueryData(['session'], null);
  };

  return (
    <>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="top">
        <span className="brand">Push admin</span>
        <nav aria-label="Main">
          <ul>
            <li>
              <Link to="/" aria-current={path === '/' ? 'page' : undefined}>
                Overview
              </Link>
            </li>
            <li>
              <Link to="/apps" aria-current={path === '/apps' ? 'page' : undefined}>
                Apps
              </Link>
            </li>
            {everywhere(session.data, 'owner') ? (
              <>
                <li>
                  <Link to="/operators" aria-current={path === '/operators' ? 'page' : undefined}>
                    Operators
                  </Link>
                </li>
                <li>
                  <Link to="/domains" aria-current={path === '/domains' ? 'page' : undefined}>
                    Domains
                  </Link>
                </li>
                <li>
                  <Link to="/audit-log" aria-current={path === '/audit-log' ? 'page' : undefined}>
                    Audit log
                  </Link>
                </li>
              </>
            ) : null}
            {appId ? (
              <>
                <li>
                  <Link to={`/apps/${appId}`} aria-current={path === `/apps/${appId}` ? 'page' : undefined}>
                    Notifications
                  </Link>
                </li>
                <li>
                  <Link to={`/apps/${appId}/installations`} aria-current={path === `/apps/${appId}/installations` ? 'page' : undefined}>
                    Installations
                  </Link>
                </li>
                <li>
                  <Link to={`/apps/${appId}/users`} aria-current={path.startsWith(`/apps/${appId}/users`) ? 'page' : undefined}>
                    Users
                  </Link>
                </li>
                <li>
                  <Link to={`/apps/${appId}/topics`} aria-current={path === `/apps/${appId}/topics` ? 'page' : undefined}>
                    Topics
                  </Link>
                </li>
                <li>
                  <Link to={`/apps/${appId}/live-activities`} aria-current={path === `/apps/${appId}/live-activities` ? 'page' : undefined}>
                    Live Activities
                  </Link>
                </li>
                <li>
                  <Link to={`/apps/${appId}/analytics`} aria-current={path === `/apps/${appId}/analytics` ? 'page' : undefined}>
                    Analytics
                  </Link>
                </li>
                <li>
                  <Link to={`/apps/${appId}/send`} aria-current={path === `/apps/${appId}/send` ? 'page' : undefined}>
                    Compose
                  </Link>
                </li>
                <li>
                  <Link to={`/apps/${appId}/settings`} aria-current={path === `/apps/${appId}/settings` ? 'page' : undefined}>
                    Settings
                  </Link>
                </li>
              </>
            ) : null}
          </ul>
        </nav>
        <span className="session">
          <Link to="/sessions" aria-current={path === '/sessions' ? 'page' : undefined}>
            {session.data.user}
          </Link>{' '}
          <button type="button" className="link-button" onClick={() => void logout()}>
            Log out
          </button>
        </span>
      </header>
      <main id="main">
        <Routes path={path} />
      </main>
    </>
  );
}
