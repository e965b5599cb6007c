// A real OpenID provider (oidc-provider, the certified library) on loopback for the dashboard's
// OIDC sign-in tests (docs/api.md#oidc): one confidential client whose redirect URL is the
// service's callback, PKCE required, and its development login form, where any login signs in
// as the account of that name: its e-mail, verified. A child process: oidc-provider is ESM-only.
//   PORT, CLIENT_ID, CLIENT_SECRET, REDIRECT_URI; the issuer is http://localhost:PORT.
import Provider from 'oidc-provider';

const { PORT, CLIENT_ID, CLIENT_SECRET, REDIRECT_URI } = process.env;
const issuer = `http://localhost:${PORT}`;

const provider = new Provider(issuer, {
  clients: [
    {
      client_id: CLIENT_ID,
      client_secret: CLIENT_SECRET,
      redirect_uris: [REDIRECT_URI],
      grant_types: ['authorization_code'],
      response_types: ['code'],
      token_endpoint_auth_method: 'client_secret_basic',
    },
  ],
  pkce: { required: () => true },
  features: { devInteractions: { enabled: true } },
  claims: { openid: ['sub'], email: ['email', 'email_verified'] },
  cookies: { keys: ['a loopback test provider only'] },
  findAccount: (_ctx, id) => ({ accountId: id, claims: () => ({ sub: id, email: id, email_verified: true }) }),
});

provider.listen(Number(PORT), () => process.stdout.write(`oidc provider listening at ${issuer}\n`));
