import { useQuery } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { ApiError, type Session, api } from '../../api';
import { Page } from '../../components/Page';
import { OIDC_SIGN_IN_ERRORS } from '../../vocabulary';

/** Why the OIDC callback sent the browser back (`?oidc_error=`), in words; the parameter is then taken off the address. */
function oidcError(): string | null {
  const params = new URLSearchParams(window.location.search);
  const reason = params.get('oidc_error');
  if (reason === null) return null;
  params.delete('oidc_error');
  const rest = params.toString();
  window.history.replaceState(window.history.state, '', `${window.location.pathname}${rest ? `?${rest}` : ''}`);
  return (OIDC_SIGN_IN_ERRORS as Record<string, string>)[reason] ?? 'The sign-in was refused.';
}

/** The login form: an operator's e-mail and password (or the bootstrap ADMIN_USER and ADMIN_PASSWORD), checked by the server, which sets the session cookie. */
export function LoginPage({ onLogin }: { onLogin: (session: Session) => void }) {
  const [user, setUser] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(oidcError);
  const oidc = useQuery({ queryKey: ['oidc'], queryFn: api.oidc, staleTime: Infinity, retry: false });
  const [busy, setBusy] = useState(false);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      onLogin(await api.login(user, password));
    } catch (caught) {
      if (caught instanceof ApiError && caught.status === 401) setError('Wrong e-mail, user name or password.');
      else if (caught instanceof ApiError && caught.status === 429) setError('Too many failed logins from here or for this account. Try again later.');
      else setError(caught instanceof Error ? caught.message : 'Login failed.');
    } finally {
      setBusy(false);
    }
  };

  return (
    <main className="login">
      <Page title="Log in to Push admin" focusHeading={false}>
        <p className="muted">Your e-mail and password (an invitation link sets it), or the service's ADMIN_USER and ADMIN_PASSWORD.</p>
        <form onSubmit={(event) => void submit(event)} className="form narrow" noValidate>
          <div className="field">
            <label htmlFor="login-user">E-mail or user name</label>
            <input id="login-user" name="username" autoComplete="username" autoFocus value={user} onChange={(e) => setUser(e.target.value)} required />
          </div>
          <div className="field">
            <label htmlFor="login-password">Password</label>
            <input
              id="login-password"
              name="password"
              type="password"
              autoComplete="current-password"
              value={password}
              onChange={(e) => setPassword(e.target.value)}
              required
            />
          </div>
          {error ? (
            <p role="alert" className="error">
              {error}
            </p>
          ) : null}
          <button type="submit" disabled={busy}>
            {busy ? 'Logging in…' : 'Log in'}
          </button>
        </form>
        {oidc.data?.enabled ? (
          <p className="oidc-sign-in">
            {/* A navigation, not a call: the provider's page opens, and comes back to the dashboard. */}
            <a className="button secondary" href={api.oidcStartUrl}>
              Sign in with {oidc.data.name}
            </a>
          </p>
        ) : null}
      </Page>
    </main>
  );
}
