/**
 * The credentials of a request, read exactly as passport-http-bearer did before it was replaced
 * (see AbilitiesGuard): an `Authorization: Bearer <token>` header (scheme case-insensitive,
 * exactly one space), else an `access_token` field of the body or the query. Undefined means
 * authentication fails: none given, a malformed header, or more than one place at once.
 * Not narrowed to a string: a non-string body/query value reaches TokensService as before.
 */
export function bearerCredentials(req: { headers: { authorization?: string }; body?: unknown; query?: unknown }): unknown {
  let token: unknown;
  const header = req.headers.authorization;
  if (header) {
    const parts = header.split(' ');
    if (parts.length !== 2) return undefined;
    if (/^Bearer$/i.test(parts[0])) token = parts[1];
  }
  const fromBody = (req.body as { access_token?: unknown } | undefined | null)?.access_token;
  if (fromBody) {
    if (token) return undefined;
    token = fromBody;
  }
  const fromQuery = (req.query as { access_token?: unknown } | undefined | null)?.access_token;
  if (fromQuery) {
    if (token) return undefined;
    token = fromQuery;
  }
  return token || undefined;
}
