import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { ApiError, type AdmittedDomain, type OperatorRole, api } from '../../api';
import { ErrorNote, Loading, Page } from '../../components/Page';
import { TableScroll } from '../../components/TableScroll';
import { Time } from '../../components/Time';
import { OPERATOR_ROLES } from '../../vocabulary';

/**
 * Admitted domains (docs/api.md#oidc), for owners of every app: an unknown e-mail of one of them
 * that signs in through the OIDC provider becomes an operator with the domain's role for every app.
 */
export function DomainsPage() {
  const client = useQueryClient();
  const domains = useQuery({ queryKey: ['operator-domains'], queryFn: api.domains });
  const oidc = useQuery({ queryKey: ['oidc'], queryFn: api.oidc, staleTime: Infinity });
  const [domain, setDomain] = useState('');
  const [role, setRole] = useState<OperatorRole>('viewer');
  const [done, setDone] = useState<string | null>(null);

  const refresh = () => client.invalidateQueries({ queryKey: ['operator-domains'] });
  const allow = useMutation({
    mutationFn: (change: { domain: string; role: OperatorRole }) => api.allowDomain(change.domain, change.role),
    onSuccess: async (allowed) => {
      setDone(`${allowed.domain} admitted: its new operators are ${allowed.role}s of every app.`);
      setDomain('');
      await refresh();
    },
  });
  const remove = useMutation({
    mutationFn: (row: AdmittedDomain) => api.removeDomain(row.domain).then(() => row),
    onSuccess: async (row) => {
      setDone(`${row.domain} is no longer admitted; the operators it admitted keep their accounts.`);
      await refresh();
    },
  });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    allow.mutate({ domain: domain.trim().replace(/^@/, ''), role });
  };
  const errors = allow.error instanceof ApiError ? Object.values(allow.error.errors).flat() : [];
  const failure = allow.error ?? remove.error;

  return (
    <Page title="Admitted domains">
      <p className="muted">
        Someone who signs in through {oidc.data?.name ?? 'your identity provider'} with an e-mail no operator has is refused, unless its domain is admitted
        here: then they become an operator with the domain&apos;s role for every app.
        {oidc.data && !oidc.data.enabled ? ' OIDC sign-in is off: set ADMIN_OIDC_ISSUER and its client (docs/operations.md).' : ''}
      </p>
      <form className="card form" onSubmit={submit} aria-labelledby="admit-title">
        <h2 id="admit-title">Admit a domain</h2>
        <div className="field">
          <label htmlFor="admit-domain">Domain</label>
          <input
            id="admit-domain"
            required
            value={domain}
            onChange={(e) => setDomain(e.target.value)}
            placeholder="example.com"
            autoComplete="off"
            autoCapitalize="none"
            spellCheck={false}
          />
        </div>
        <div className="field">
          <label htmlFor="admit-role">Role for every app</label>
          <select id="admit-role" value={role} onChange={(e) => setRole(e.target.value as OperatorRole)}>
            {OPERATOR_ROLES.map((r) => (
              <option key={r} value={r}>
                {r}
              </option>
            ))}
          </select>
        </div>
        <button type="submit" disabled={allow.isPending}>
          Admit
        </button>
        {errors.length ? (
          <p role="alert" className="field-error">
            {errors.join(' ')}
          </p>
        ) : null}
      </form>
      {done ? <p role="status">{done}</p> : null}
      {failure && !(failure instanceof ApiError && failure.status === 422) ? <ErrorNote error={failure} /> : null}
      {domains.isPending ? <Loading what="the admitted domains" /> : null}
      {domains.isError ? <ErrorNote error={domains.error} /> : null}
      {domains.data?.length === 0 ? <p className="muted">No domain is admitted: only operators who exist can sign in.</p> : null}
      {domains.data?.length ? (
        <TableScroll label="Admitted domains table">
          <table className="data">
            <thead>
              <tr>
                <th scope="col">Domain</th>
                <th scope="col">Role for every app</th>
                <th scope="col">Since</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {domains.data.map((row) => (
                <tr key={row.domain}>
                  <td>{row.domain}</td>
                  <td>
                    <select
                      aria-label={`Role of ${row.domain}`}
                      value={row.role}
                      onChange={(e) => allow.mutate({ domain: row.domain, role: e.target.value as OperatorRole })}
                    >
                      {OPERATOR_ROLES.map((r) => (
                        <option key={r} value={r}>
                          {r}
                        </option>
                      ))}
                    </select>
                  </td>
                  <td>
                    <Time iso={row.created_at} />
                  </td>
                  <td>
                    <button type="button" className="danger" onClick={() => remove.mutate(row)} aria-label={`Remove ${row.domain}`}>
                      Remove
                    </button>
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
