import { screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { fakeFetch, renderWithQueries } from '../../testing/render';
import { LoginPage } from './LoginPage';

afterEach(() => {
  vi.unstubAllGlobals();
  window.history.replaceState(null, '', '/admin');
});

describe('LoginPage with OIDC (docs/api.md#oidc)', () => {
  it('offers "Sign in with <provider>" when the server says OIDC is on', async () => {
    fakeFetch({ 'GET /admin/api/oidc': () => ({ status: 200, body: { data: { enabled: true, name: 'Acme SSO' } } }) });
    renderWithQueries(<LoginPage onLogin={() => undefined} />);
    const link = await screen.findByRole('link', { name: 'Sign in with Acme SSO' });
    expect(link.getAttribute('href')).toBe('/admin/api/oidc/start');
  });

  it('offers nothing more when it is off', async () => {
    const calls = fakeFetch({ 'GET /admin/api/oidc': () => ({ status: 200, body: { data: { enabled: false, name: null } } }) });
    renderWithQueries(<LoginPage onLogin={() => undefined} />);
    await vi.waitFor(() => expect(calls.length).toBe(1));
    expect(screen.queryByRole('link', { name: /Sign in with/ })).toBeNull();
  });

  it("says in words why the provider's sign-in was refused, and takes the reason off the address", async () => {
    fakeFetch({ 'GET /admin/api/oidc': () => ({ status: 200, body: { data: { enabled: true, name: 'Acme SSO' } } }) });
    window.history.replaceState(null, '', '/admin?oidc_error=refused');
    renderWithQueries(<LoginPage onLogin={() => undefined} />);
    expect(screen.getByRole('alert').textContent).toMatch(/^No enabled operator has this e-mail and its domain is not admitted/);
    expect(window.location.search).toBe('');
  });
});
