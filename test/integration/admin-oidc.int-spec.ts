import { AdminLoginRefused, AdminSessionsService } from '../../src/admin/admin-sessions.service';
import { OperatorsService } from '../../src/operators/operators.service';
import { useTestApp } from '../support/create-test-app';
import { freePort } from '../support/processes';

const ADMIN = { ADMIN_USER: 'ops', ADMIN_PASSWORD: 'a-long-dashboard-password' };
const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
const ORIGIN = { address: '203.0.113.7', userAgent: null };

/**
 * Issue 54 item 2 (docs/api.md#oidc): OIDC sign-in's configuration and refusals without a
 * provider (test/e2e/admin-oidc.e2e-spec.ts runs the whole flow against one; off without its
 * variables: admin-oidc-off.int-spec.ts): the login page is told its name, an unreachable provider and a callback
 * without its attempt come back to the login page with the reason, and count as failed logins;
 * the e-mail's rules (known, admitted domain, disabled) are the sessions service's.
 */
describe('OIDC sign-in on, its provider not reachable (docs/api.md#oidc)', () => {
  const ctx = useTestApp(async () => ({
    env: {
      ...ADMIN,
      PUBLIC_URL: 'http://127.0.0.1:3000',
      // A loopback port nothing listens on.
      ADMIN_OIDC_ISSUER: `http://127.0.0.1:${await freePort()}`,
      ADMIN_OIDC_CLIENT_ID: 'pns',
      ADMIN_OIDC_CLIENT_SECRET: 'a client secret',
      ADMIN_OIDC_NAME: 'Acme SSO',
    },
  }));

  it('tells the login page its name', async () => {
    expect((await ctx.http().get('/admin/api/oidc').expect(200)).body).toEqual({ data: { enabled: true, name: 'Acme SSO' } });
  });

  it('sends the browser back to the login page when the provider cannot be reached', async () => {
    const res = await ctx.http().get('/admin/api/oidc/start').expect(303);
    expect(res.headers.location).toBe('/admin?oidc_error=provider');
    expect(res.headers['set-cookie']).toBeUndefined();
  });

  it('refuses a callback without its attempt, clears the cookie, and counts it as a failed login until the address is blocked', async () => {
    const callback = () => ctx.http().get('/admin/api/oidc/callback?code=a-code&state=a-state').set('Cookie', 'pns_oidc=forged.value').expect(303);
    const first = await callback();
    expect(first.headers.location).toBe('/admin?oidc_error=attempt');
    expect(first.headers['set-cookie']).toEqual(['pns_oidc=; Path=/admin/api/oidc; HttpOnly; SameSite=Lax; Max-Age=0']);
    // 10 failures are allowed (docs/api.md#operators): this one was the 1st.
    for (let i = 2; i <= 10; i++) expect((await callback()).headers.location).toBe('/admin?oidc_error=attempt');
    expect((await callback()).headers.location).toBe('/admin?oidc_error=throttled');
    expect((await callback()).headers.location).toBe('/admin?oidc_error=throttled');
    // The same limits as the password login: the right password is refused from this address now.
    await ctx.http().post('/admin/api/session').set('Authorization', basic(ADMIN.ADMIN_USER, ADMIN.ADMIN_PASSWORD)).expect(429);
  });

  it('signs in a known operator, creates an admitted domain’s, and refuses the rest, counting per account', async () => {
    const sessions = ctx.get(AdminSessionsService);
    const operators = ctx.get(OperatorsService);
    await operators.create('ana@example.com', [{ app_id: null, role: 'editor' }]);
    await operators.allowDomain('team.example', 'owner');

    const ana = await sessions.signIn('ANA@example.com', ORIGIN);
    expect(ana.session.operator).toMatchObject({ email: 'ana@example.com', grants: [{ app_id: null, role: 'editor' }] });
    const [row] = await ctx.db.query(`SELECT method FROM operator_sessions WHERE id = $1`, [ana.session.id]);
    expect(row).toEqual({ method: 'oidc' });

    const dora = await sessions.signIn('dora@team.example', ORIGIN);
    expect(dora.session.operator.grants).toEqual([{ app_id: null, role: 'owner' }]);
    expect(await operators.findByEmail('dora@team.example')).toMatchObject({ password_set: false });

    await expect(sessions.signIn('eve@elsewhere.example', ORIGIN)).rejects.toBeInstanceOf(AdminLoginRefused);
    expect(await operators.findByEmail('eve@elsewhere.example')).toBeNull();
    await expect(sessions.signIn('not an e-mail', ORIGIN)).rejects.toBeInstanceOf(AdminLoginRefused);

    await operators.disable((await operators.findByEmail('ana@example.com'))!.id);
    await expect(sessions.signIn('ana@example.com', ORIGIN)).rejects.toMatchObject({ status: 401 });
    const logins = await ctx.db.query(`SELECT actor, details FROM audit_log WHERE action = 'session.login' ORDER BY id`);
    expect(logins).toEqual([
      { actor: 'ana@example.com', details: { method: 'oidc' } },
      { actor: 'dora@team.example', details: { method: 'oidc' } },
    ]);
  });
});
