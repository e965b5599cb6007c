import { type FormEvent, useState } from 'react';
import { ApiError, api } from '../../api';
import { Page } from '../../components/Page';

/** An invitation link (`/admin/invitation#<token>`, docs/api.md#operators): sets the operator's password, once; then they log in. */
export function InvitationPage() {
  const token = window.location.hash.slice(1);
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [email, setEmail] = useState<string | null>(null);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setError(null);
    try {
      setEmail((await api.acceptInvitation(token, password)).email);
      history.replaceState(null, '', '/admin/invitation');
    } catch (caught) {
      if (caught instanceof ApiError && caught.status === 422) setError(Object.values(caught.errors).flat().join(' ') || caught.message);
      else setError(caught instanceof Error ? caught.message : 'That did not work.');
    }
  };

  return (
    <main className="login">
      <Page title="Set your password" focusHeading={false}>
        {email ? (
          <p role="status">
            Your password is set, {email}. <a href="/admin">Log in</a>.
          </p>
        ) : (
          <form onSubmit={(event) => void submit(event)} className="form narrow">
            <div className="field">
              <label htmlFor="invitation-password">New password (at least 12 characters)</label>
              <input
                id="invitation-password"
                type="password"
                autoComplete="new-password"
                minLength={12}
                autoFocus
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
            <button type="submit">Set my password</button>
          </form>
        )}
      </Page>
    </main>
  );
}
