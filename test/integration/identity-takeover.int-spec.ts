import { createHmac } from 'node:crypto';
import { AppsService } from '../../src/apps/apps.service';
import { useTestApp } from '../support/create-test-app';
import { apnsToken, bearer, installationId, newApp, newToken, type TestTenant } from '../support/factories';

const hash = (secret: string, userId: string) => createHmac('sha256', secret).update(userId).digest('hex');
const P256DH = Buffer.concat([Buffer.from([4]), Buffer.alloc(64, 7)]).toString('base64url');
const AUTH = Buffer.alloc(16, 3).toString('base64url');
const subscription = (n: number) => ({ endpoint: `https://fcm.googleapis.com/fcm/send/${n}`, keys: { p256dh: P256DH, auth: AUTH } });
const startToken = () => apnsToken();

/**
 * Issue 57 item 3 (docs/api.md "Identity verification"): with verification on, whoever knows the id
 * of an installation bound to a user must not receive that user's notifications by giving it a
 * token of their own. Changing the push token, subscription or start tokens of a bound
 * installation needs that user's user_id_hash (or moving it to a user the caller proves, or null).
 */
describe('identity verification: taking over a bound installation (issue 57 item 3)', () => {
  // Public push services, as in installations.int-spec.
  const ctx = useTestApp({ env: { WEB_PUSH_ALLOWED_HOSTS: '' } });
  let tenant: TestTenant;
  let client: string;
  let server: string;
  let secret: string;

  beforeAll(async () => {
    tenant = await newApp(ctx);
    client = await newToken(ctx, tenant.appId, ['installations:write', 'installations:read']);
    server = await newToken(ctx, tenant.appId, ['installations:write', 'installations:identify']);
    secret = (await ctx.get(AppsService).identitySecret(tenant.appId, {}))!.secret;
    await ctx.get(AppsService).updateSettings(tenant.appId, { identity_verification: true });
  });

  const put = (id: string, body: Record<string, unknown>, token = client) => ctx.http().put(`/api/v1/installations/${id}`).set(bearer(token)).send(body);
  const patch = (id: string, body: Record<string, unknown>, token = client) => ctx.http().patch(`/api/v1/installations/${id}`).set(bearer(token)).send(body);
  const stored = async (id: string) =>
    (
      await ctx.db.query<{ push_token: string | null; web_push_subscription: unknown; user_id: string | null; live_activity_start_tokens: object }[]>(
        `SELECT push_token, web_push_subscription, user_id, live_activity_start_tokens FROM installations WHERE app_id = $1 AND installation_id = $2`,
        [tenant.appId, id],
      )
    )[0];
  const required = (field: string) => ({ user_id_hash: [`The user_id_hash field is required to change the ${field} of an installation bound to a user.`] });
  const MISMATCH = { user_id_hash: ["The user_id_hash does not match the installation's user_id."] };

  /** Alice's iPhone, bound with her hash by her own client. */
  const alicesPhone = async () => {
    const id = installationId();
    const token = apnsToken();
    await put(id, { platform: 'ios', push_token: token, user_id: 'alice', user_id_hash: hash(secret, 'alice') }).expect(201);
    return { id, token };
  };

  it("refuses another push token without the user's hash, by PUT and by PATCH, and keeps the owner's", async () => {
    const { id, token } = await alicesPhone();
    const attacker = apnsToken();
    const byPut = await put(id, { push_token: attacker });
    expect({ status: byPut.status, body: byPut.body }).toEqual({ status: 422, body: { message: expect.any(String), errors: required('push_token') } });
    const byPatch = await patch(id, { push_token: attacker, tags: ['x'] });
    expect({ status: byPatch.status, errors: byPatch.body.errors }).toEqual({ status: 422, errors: required('push_token') });
    // Another user's valid hash is no proof for alice.
    const wrong = await patch(id, { push_token: attacker, user_id_hash: hash(secret, 'mallory') });
    expect({ status: wrong.status, errors: wrong.body.errors }).toEqual({ status: 422, errors: MISMATCH });
    expect(await stored(id)).toMatchObject({ push_token: token, user_id: 'alice' });
  });

  it('refuses another web subscription or start token the same way', async () => {
    const web = installationId();
    await put(web, { platform: 'web', web_push_subscription: subscription(1), user_id: 'alice', user_id_hash: hash(secret, 'alice') }).expect(201);
    const refused = await put(web, { web_push_subscription: subscription(2) });
    expect({ status: refused.status, errors: refused.body.errors }).toEqual({ status: 422, errors: required('web_push_subscription') });
    expect((await stored(web)).web_push_subscription).toEqual(subscription(1));
    // Another platform's field is refused for what it is, as without verification.
    expect((await patch(web, { push_token: apnsToken() })).body.errors).toEqual({
      push_token: ['The push_token field is prohibited when platform is web; send web_push_subscription.'],
    });
    await patch(web, { web_push_subscription: subscription(2), user_id_hash: hash(secret, 'alice') }).expect(200);
    expect((await stored(web)).web_push_subscription).toEqual(subscription(2));

    const { id } = await alicesPhone();
    const start = await patch(id, { live_activity_start_tokens: { DeliveryAttributes: startToken() } });
    expect({ status: start.status, errors: start.body.errors }).toEqual({ status: 422, errors: required('live_activity_start_tokens') });
  });

  it("lets the owner's client through: the same token again, or a new one with the user's hash", async () => {
    const { id, token } = await alicesPhone();
    // Every start: the stored token again (in upper case too), with other fields, needs no hash.
    await put(id, { platform: 'ios', push_token: token.toUpperCase(), tags: ['beta'] }).expect(200);
    await patch(id, { push_token: token, permission: 'granted' }).expect(200);
    const fresh = apnsToken();
    await put(id, { push_token: fresh, user_id_hash: hash(secret, 'alice') }).expect(200);
    // With user_id again and its hash, as the web SDK's setUser sends it.
    const again = apnsToken();
    await put(id, { push_token: again, user_id: 'alice', user_id_hash: hash(secret, 'alice') }).expect(200);
    expect(await stored(id)).toMatchObject({ push_token: again, user_id: 'alice' });
  });

  it('lets a token change through when the binding goes with it, when unbound, with a server token, or with verification off', async () => {
    // Logout and a new token at once: alice's notifications no longer go there.
    const out = await alicesPhone();
    await patch(out.id, { push_token: apnsToken(), user_id: null }).expect(200);
    expect(await stored(out.id)).toMatchObject({ user_id: null });
    // Moving it to a user the caller proves.
    const moved = await alicesPhone();
    await put(moved.id, { push_token: apnsToken(), user_id: 'mallory', user_id_hash: hash(secret, 'mallory') }).expect(200);
    expect(await stored(moved.id)).toMatchObject({ user_id: 'mallory' });
    // An installation bound to nobody: no user to protect.
    await patch(out.id, { push_token: apnsToken() }).expect(200);
    // The backend, with installations:identify.
    const byServer = await alicesPhone();
    await patch(byServer.id, { push_token: apnsToken() }, server).expect(200);
    // An app without verification.
    const other = await newApp(ctx);
    const id = installationId();
    await put(id, { platform: 'ios', push_token: apnsToken(), user_id: 'alice' }, other.token).expect(201);
    const otherClient = await newToken(ctx, other.appId, ['installations:write']);
    await patch(id, { push_token: apnsToken() }, otherClient).expect(200);
  });
});
