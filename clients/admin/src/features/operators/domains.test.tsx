import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type AdmittedDomain, setCsrfToken } from '../../api';
import { fakeFetch, renderWithQueries } from '../../testing/render';
import { DomainsPage } from './DomainsPage';

afterEach(() => {
  vi.unstubAllGlobals();
  setCsrfToken(null);
});

/** The page over a little server of its own: its domains change with PUT and DELETE. */
function open(initial: AdmittedDomain[], names = ['example.com', 'acme.io']) {
  const domains = new Map(initial.map((d) => [d.domain, d]));
  const calls = fakeFetch({
    'GET /admin/api/oidc': () => ({ status: 200, body: { data: { enabled: true, name: 'Acme SSO' } } }),
    'GET /admin/api/operator-domains': () => ({ status: 200, body: { data: [...domains.values()] } }),
    ...Object.fromEntries(
      names.flatMap((name) => [
        [
          `PUT /admin/api/operator-domains/${name}`,
          (init: RequestInit) => {
            const row = { domain: name, role: JSON.parse(init.body as string).role, created_at: '2026-11-29T10:00:00.000Z' };
            domains.set(name, row);
            return { status: 200, body: { data: row } };
          },
        ],
        [`DELETE /admin/api/operator-domains/${name}`, () => (domains.delete(name), { status: 204 })],
      ]),
    ),
  });
  setCsrfToken('csrf-1');
  renderWithQueries(<DomainsPage />);
  return calls;
}

describe('DomainsPage', () => {
  it('lists the admitted domains with their role, and says when there is none', async () => {
    open([{ domain: 'example.com', role: 'editor', created_at: '2026-11-24T10:00:00.000Z' }]);
    const table = await screen.findByRole('region', { name: 'Admitted domains table' });
    expect(within(table).getByText('example.com')).toBeTruthy();
    expect(within(table).getByLabelText<HTMLSelectElement>('Role of example.com').value).toBe('editor');
    expect(await screen.findByText(/signs in through Acme SSO/)).toBeTruthy();
  });

  it('admits a domain with a role for every app, sending the CSRF token, and removes one', async () => {
    const calls = open([]);
    await screen.findByText(/No domain is admitted/);
    await userEvent.type(screen.getByLabelText('Domain'), '@acme.io');
    await userEvent.selectOptions(screen.getByLabelText('Role for every app'), 'owner');
    await userEvent.click(screen.getByRole('button', { name: 'Admit' }));
    await screen.findByText('acme.io admitted: its new operators are owners of every app.');
    const put = calls.find((c) => c.method === 'PUT')!;
    expect(put.path).toBe('/admin/api/operator-domains/acme.io');
    expect(JSON.parse(put.init.body as string)).toEqual({ role: 'owner' });
    expect((put.init.headers as Record<string, string>)['x-csrf-token']).toBe('csrf-1');
    const table = await screen.findByRole('region', { name: 'Admitted domains table' });
    await userEvent.click(within(table).getByRole('button', { name: 'Remove acme.io' }));
    await screen.findByText(/acme.io is no longer admitted/);
    await waitFor(() => expect(screen.queryByRole('region', { name: 'Admitted domains table' })).toBeNull());
    expect(calls.some((c) => c.method === 'DELETE' && c.path === '/admin/api/operator-domains/acme.io')).toBe(true);
  });
});
