/** The few routes of the service the SDK calls (docs/api.md#installations and docs/api.md#reads-and-events), with its bearer token. */
export interface ApiConfig {
  baseUrl: string;
  token: string;
}

export type Fetch = typeof fetch;

/** A refusal by the service: `status` and its `{"message"}` (docs/api.md#errors). */
export class PushApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly body: unknown,
  ) {
    super(message);
    this.name = 'PushApiError';
  }

  /** Worth trying again later: the request timed out, was rate limited or met a server error. */
  get retryable(): boolean {
    return this.status === 408 || this.status === 429 || this.status >= 500;
  }
}

export async function callApi(
  config: ApiConfig,
  fetcher: Fetch,
  method: 'GET' | 'PUT' | 'PATCH' | 'DELETE' | 'POST',
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<unknown> {
  const response = await fetcher(`${config.baseUrl.replace(/\/+$/, '')}/api/v1${path}`, {
    method,
    headers: {
      authorization: `Bearer ${config.token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...headers,
    },
    body: body === undefined ? undefined : JSON.stringify(body),
    // The token travels in its header, never as a cookie.
    credentials: 'omit',
  });
  const text = await response.text();
  let parsed: unknown = undefined;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    // a proxy's HTML error page: keep the status
  }
  if (!response.ok) {
    const message = (parsed as { message?: unknown } | undefined)?.message;
    throw new PushApiError(response.status, typeof message === 'string' ? message : `HTTP ${response.status}`, parsed);
  }
  return parsed;
}

export const installationPath = (installationId: string) => `/installations/${encodeURIComponent(installationId)}`;

/** A per-user route (docs/api.md#user-access). */
export const userPath = (userId: string, rest: string) => `/users/${encodeURIComponent(userId)}${rest}`;

/** The user the page acts for, and the proof a `users:self` token needs while identity verification is on. */
export interface CurrentUser {
  userId: string;
  userIdHash: string | null;
}

/** The `X-User-Id-Hash` header when there is a hash (docs/api.md#user-access). */
export const userHeaders = (user: CurrentUser): Record<string, string> => (user.userIdHash ? { 'x-user-id-hash': user.userIdHash } : {});
