import { TokenCache } from '../../src/auth/token-cache';
import { TokensService } from '../../src/auth/tokens.service';
import { useTestApp } from '../support/create-test-app';
import { bearer, newApp, TestTenant } from '../support/factories';

/** TOKEN_CACHE=false, for PgBouncer in transaction mode, which does not pass notifications on. */
describe('TOKEN_CACHE=false (docs/operations.md, "Tokens in memory")', () => {
  const ctx = useTestApp({ env: { TOKEN_CACHE: 'false' } });
  let tenant: TestTenant;

  beforeAll(async () => {
    tenant = await newApp(ctx);
  });

  it('reads every token from the database and opens no listener', async () => {
    const created = await ctx.get(TokensService).create({ appId: tenant.appId, abilities: ['*'] });
    const list = () => ctx.http().get('/api/v1/notifications').set(bearer(created.token));
    await list().expect(200);
    await list().expect(200);

    // Even a change nobody announces is seen by the next request.
    await ctx.db.query(`ALTER TABLE api_tokens DISABLE TRIGGER api_tokens_changed`);
    await ctx.db.query(`UPDATE api_tokens SET revoked_at = now() WHERE id = $1`, [created.id]);
    await list().expect(401);

    expect(ctx.get(TokenCache).listening).toBe(false);
    const listeners = await ctx.db.query(`SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name LIKE 'push-%-tokens'`);
    expect(listeners).toEqual([]);
  });
});
