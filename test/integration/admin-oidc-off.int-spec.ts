import { useTestApp } from '../support/create-test-app';

const ADMIN = { ADMIN_USER: 'ops', ADMIN_PASSWORD: 'a-long-dashboard-password' };

/** Issue 54 item 2 (docs/api.md#oidc): without ADMIN_OIDC_ISSUER the login page offers no provider and the flow's routes are not there. */
describe('OIDC sign-in off (docs/api.md#oidc)', () => {
  const ctx = useTestApp({ env: ADMIN });

  it('says it is off, and its routes are not there', async () => {
    expect((await ctx.http().get('/admin/api/oidc').expect(200)).body).toEqual({ data: { enabled: false, name: null } });
    await ctx.http().get('/admin/api/oidc/start').expect(404);
    await ctx.http().get('/admin/api/oidc/callback?code=x&state=y').expect(404);
  });
});
