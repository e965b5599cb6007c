import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { ApiError, type Grant, type Operator, type OperatorRole, api } from '../../api';
import { ErrorNote, Loading, Page } from '../../components/Page';
import { TableScroll } from '../../components/TableScroll';
import { Time } from '../../components/Time';
import { OPERATOR_ROLES } from '../../vocabulary';

/** The one-time link with this dashboard's origin: the server knows only its path. */
const fullLink = (link: string) => `${window.location.origin}${link}`;

/**
 * Operators (docs/api.md#operators), for owners of every app: invite by one-time link (shown
 * once), change a role (for every app or one), a new link, disable. The server refuses anyone else.
 */
export function OperatorsPage() {
  const client = useQueryClient();
  const operators = useQuery({ queryKey: ['operators'], queryFn: api.operators });
  const apps = useQuery({ queryKey: ['apps'], queryFn: api.apps });
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<OperatorRole>('viewer');
  const [appId, setAppId] = useState('');
  const [link, setLink] = useState<{ email: string; link: string } | null>(null);
  const [done, setDone] = useState<string | null>(null);

  const refresh = () => client.invalidateQueries({ queryKey: ['operators'] });
  const invite = useMutation({
    mutationFn: () => api.createOperator(email.trim(), [{ app_id: appId || null, role }]),
    onSuccess: async (created) => {
      setLink({ email: created.data.email, link: fullLink(created.invitation.link) });
      setDone(null);
      setEmail('');
      await refresh();
    },
  });
  const change = useMutation({
    mutationFn: ({ operator, grants }: { operator: Operator; grants: Grant[] }) => api.setGrants(operator.id, grants),
    onSuccess: async (operator) => {
      setDone(`Roles of ${operator.email} changed.`);
      await refresh();
    },
  });
  const newLink = useMutation({
    mutationFn: (operator: Operator) => api.invite(operator.id).then((invitation) => ({ email: operator.email, link: fullLink(invitation.link) })),
    onSuccess: (made) => setLink(made),
  });
  const disable = useMutation({
    mutationFn: (operator: Operator) => api.disableOperator(operator.id),
    onSuccess: async (operator) => {
      setDone(`${operator.email} is disabled: their sessions ended.`);
      await refresh();
    },
  });

  const appName = (id: string | null) => (id === null ? 'every app' : (apps.data?.find((a) => a.id === id)?.name ?? id));
  const submit = (event: FormEvent) => {
    event.preventDefault();
    invite.mutate();
  };
  const errors = invite.error instanceof ApiError ? Object.values(invite.error.errors).flat() : [];
  const failure = invite.error ?? change.error ?? newLink.error ?? disable.error;

  return (
    <Page title="Operators">
      <form className="card form" onSubmit={submit} aria-labelledby="invite-title">
        <h2 id="invite-title">Invite an operator</h2>
        <div className="field">
          <label htmlFor="invite-email">E-mail</label>
          <input id="invite-email" type="email" required value={email} onChange={(e) => setEmail(e.target.value)} autoComplete="off" />
        </div>
        <div className="field">
          <label htmlFor="invite-role">Role</label>
          <select id="invite-role" value={role} onChange={(e) => setRole(e.target.value as OperatorRole)}>
            {OPERATOR_ROLES.map((r) => (
              <option key={r} value={r}>
                {r}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor="invite-for">For</label>
          <select id="invite-for" value={appId} onChange={(e) => setAppId(e.target.value)}>
            <option value="">every app</option>
            {apps.data?.map((a) => (
              <option key={a.id} value={a.id}>
                {a.name}
              </option>
            ))}
          </select>
        </div>
        <button type="submit" disabled={invite.isPending}>
          Invite
        </button>
        {errors.length ? (
          <p role="alert" className="field-error">
            {errors.join(' ')}
          </p>
        ) : null}
      </form>
      {link ? (
        <div className="card" role="status">
          <p>
            The one-time link for <strong>{link.email}</strong>, shown only now (good for 7 days): send it to them.
          </p>
          <p>
            <code className="break">{link.link}</code>{' '}
            <button type="button" className="link-button" onClick={() => void navigator.clipboard?.writeText(link.link)}>
              Copy
            </button>
          </p>
        </div>
      ) : null}
      {done ? <p role="status">{done}</p> : null}
      {failure && !(failure instanceof ApiError && failure.status === 422) ? <ErrorNote error={failure} /> : null}
      {operators.isPending ? <Loading what="the operators" /> : null}
      {operators.isError ? <ErrorNote error={operators.error} /> : null}
      {operators.data ? (
        <TableScroll label="Operators">
          <table className="data">
            <thead>
              <tr>
                <th scope="col">E-mail</th>
                <th scope="col">Roles</th>
                <th scope="col">Password</th>
                <th scope="col">Since</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {operators.data.map((operator) => (
                <tr key={operator.id} className={operator.disabled_at ? 'muted' : undefined}>
                  <td>
                    {operator.email}
                    {operator.bootstrap ? ' (ADMIN_USER)' : ''}
                    {operator.disabled_at ? ' (disabled)' : ''}
                  </td>
                  <td>
                    {operator.grants.map((g) => (
                      <div key={g.app_id ?? 'all'}>
                        <select
                          aria-label={`Role of ${operator.email} for ${appName(g.app_id)}`}
                          value={g.role}
                          disabled={!!operator.disabled_at || operator.bootstrap}
                          onChange={(e) =>
                            change.mutate({
                              operator,
                              grants: operator.grants.map((x) => (x.app_id === g.app_id ? { ...x, role: e.target.value as OperatorRole } : x)),
                            })
                          }
                        >
                          {OPERATOR_ROLES.map((r) => (
                            <option key={r} value={r}>
                              {r}
                            </option>
                          ))}
                        </select>{' '}
                        of {appName(g.app_id)}
                      </div>
                    ))}
                  </td>
                  <td>{operator.password_set ? 'set' : 'not yet'}</td>
                  <td>
                    <Time iso={operator.created_at} />
                  </td>
                  <td>
                    {operator.disabled_at || operator.bootstrap ? null : (
                      <>
                        <button type="button" className="link-button" onClick={() => newLink.mutate(operator)}>
                          New link
                        </button>{' '}
                        <button type="button" className="danger" onClick={() => disable.mutate(operator)}>
                          Disable
                        </button>
                      </>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      ) : null}
    </Page>
  );
}
