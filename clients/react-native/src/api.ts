/** The service's address and the app's client token (docs/api.md#tokens). */
export interface ApiConfig {
  baseUrl: string;
  token: string;
}

/** The part of a `fetch` answer the SDK reads: React Native's, Node's and `expo/fetch`'s all have it. */
export interface ResponseLike {
  readonly ok: boolean;
  readonly status: number;
  text(): Promise<string>;
  readonly body?: { getReader(): { read(): Promise<{ done: boolean; value?: Uint8Array }> } } | null;
}

export type Fetch = (url: string, init: { method?: string; headers?: Record<string, string>; body?: string; signal?: AbortSignal }) => Promise<ResponseLike>;

/** A refusal by the service: `status`, its `{"message"}` and, on a 422, the `errors` by field (docs/api.md#errors). */
export class PushApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly body: unknown,
  ) {
    super(message);
    this.name = 'PushApiError';
  }

  /** The 422's messages by field, `{}` otherwise. */
  get errors(): Record<string, string[]> {
    const errors = (this.body as { errors?: unknown } | undefined)?.errors;
    return errors && typeof errors === 'object' ? (errors as Record<string, string[]>) : {};
  }

  /** Worth trying again later: the request timed out, was rate limited or met a server error. */
  get retryable(): boolean {
    return this.status === 408 || this.status === 429 || this.status >= 500;
  }
}

/** Whether a failure may pass if tried later: a lost connection (fetch throws a TypeError) or a retryable answer. */
export const retryable = (error: unknown): boolean => (error instanceof PushApiError ? error.retryable : error instanceof TypeError);

export const apiUrl = (config: ApiConfig, path: string) => `${config.baseUrl.replace(/\/+$/, '')}/api/v1${path}`;

export const authorization = (config: ApiConfig) => ({ authorization: `Bearer ${config.token}` });

export async function callApi(
  config: ApiConfig,
  fetcher: Fetch,
  method: 'GET' | 'PUT' | 'PATCH' | 'DELETE' | 'POST',
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<unknown> {
  const response = await fetcher(apiUrl(config, path), {
    method,
    headers: { ...authorization(config), ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
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

/** The user the app acts for, and the proof a `users:self` token needs while identity verification is on. */
export interface CurrentUser {
  userId: string;
  userIdHash: string | null;
}

/** The `X-User-Id-Hash` header when there is a hash (docs/api.md#user-access). */
export const userHeaders = (user: CurrentUser): Record<string, string> => (user.userIdHash ? { 'x-user-id-hash': user.userIdHash } : {});
