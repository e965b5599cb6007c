import { ApiConfig, callApi, CurrentUser, Fetch, userHeaders, userPath } from './api';

/** A user's preferences as the service answers them (docs/api.md#preferences). */
export interface Preferences {
  user_id: string;
  topics: Record<string, { subscribed: boolean; source: 'default' | 'user' }>;
  channels: { push: boolean; inbox: boolean };
}

/** What `preferences.update` changes: a topic or channel to a choice, or `null` back to its default. */
export interface PreferencesChange {
  topics?: Record<string, boolean | null>;
  channels?: { push?: boolean | null; inbox?: boolean | null };
}

/** The current user's preferences; the token needs `users:self` (or `users:manage`). */
export class PreferencesApi {
  constructor(
    private readonly api: ApiConfig,
    private readonly fetcher: Fetch,
    private readonly user: () => CurrentUser,
  ) {}

  async get(): Promise<Preferences> {
    const user = this.user();
    const body = (await callApi(this.api, this.fetcher, 'GET', userPath(user.userId, '/preferences'), undefined, userHeaders(user))) as { data: Preferences };
    return body.data;
  }

  async update(change: PreferencesChange): Promise<Preferences> {
    const user = this.user();
    const body = (await callApi(this.api, this.fetcher, 'PATCH', userPath(user.userId, '/preferences'), change, userHeaders(user))) as { data: Preferences };
    return body.data;
  }
}
