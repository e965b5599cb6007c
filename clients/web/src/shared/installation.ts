import { ApiConfig, callApi, Fetch, installationPath, PushApiError } from './api';
import { read, update } from './store';

/** What init() keeps for the service worker, which has no page to ask (key `config`). */
export interface StoredConfig extends ApiConfig {
  vapidPublicKey: string;
  appVersion: string | null;
}

/** The installation as this browser knows it (key `installation`). */
export interface InstallationState {
  id: string;
  /** What the app asked for; `undefined` when it never called setUser / setTags. */
  userId?: string | null;
  tags?: string[];
  /** The user_id_hash your backend computed for `userId` (identity verification), sent with it. */
  userIdHash?: string | null;
  /** The last body the service accepted for this installation, and when; absent when not registered. */
  registered?: { body: RegistrationBody; at: number };
  /** A PUT on its way, so another tab does not send the same one meanwhile. */
  sending?: { body: RegistrationBody; at: number };
}

export interface RegistrationBody {
  platform: 'web';
  web_push_subscription: { endpoint: string; keys: { p256dh: string; auth: string } };
  permission: 'granted' | 'denied' | 'unknown';
  device: { app_version: string | null; locale: string | null; timezone: string | null };
  user_id?: string | null;
  user_id_hash?: string;
  tags?: string[];
}

/** The shape of `PushSubscription.toJSON()`. */
export interface SubscriptionJson {
  endpoint?: string;
  expirationTime?: number | null;
  keys?: Record<string, string>;
}

/** A PUT that would change nothing is still sent once a day, so `last_seen_at` stays meaningful. */
export const REFRESH_AFTER_MS = 24 * 60 * 60 * 1000;

/** How long a claimed PUT keeps others from sending the same body (longer than any request). */
const SENDING_CLAIM_MS = 30 * 1000;

export const CONFIG_KEY = 'config';
export const INSTALLATION_KEY = 'installation';

export function newInstallationId(): string {
  if (typeof crypto.randomUUID === 'function') return crypto.randomUUID();
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
}

/** The installation state, with an id generated and kept on first use (stable across reloads). */
export const installationState = () => update<InstallationState>(INSTALLATION_KEY, (current) => current ?? { id: newInstallationId() });

export const browserPermission = (permission: NotificationPermission | undefined): RegistrationBody['permission'] =>
  permission === 'granted' || permission === 'denied' ? permission : 'unknown';

export function registrationBody(
  subscription: SubscriptionJson,
  permission: RegistrationBody['permission'],
  appVersion: string | null,
  state: InstallationState,
): RegistrationBody {
  if (!subscription.endpoint || !subscription.keys?.p256dh || !subscription.keys.auth) {
    throw new TypeError('The push subscription has no endpoint or keys');
  }
  const body: RegistrationBody = {
    platform: 'web',
    web_push_subscription: {
      endpoint: subscription.endpoint,
      keys: { p256dh: subscription.keys.p256dh, auth: subscription.keys.auth },
    },
    permission,
    device: {
      app_version: appVersion,
      locale: typeof navigator !== 'undefined' && navigator.language ? navigator.language : null,
      timezone: Intl.DateTimeFormat().resolvedOptions().timeZone ?? null,
    },
  };
  if (state.userId !== undefined) body.user_id = state.userId;
  if (typeof state.userId === 'string' && state.userIdHash) body.user_id_hash = state.userIdHash;
  // Only once the app used tags, so a service without them is never sent the field.
  if (state.tags !== undefined) body.tags = state.tags;
  return body;
}

/** JSON with sorted keys: two bodies are the same registration whatever order they were built in. */
export function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined);
    return `{${entries
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

/**
 * Registers (PUT, docs/api.md#register-installation) unless the service already has exactly this body from less
 * than a day ago: the same PUT is never sent twice in a row for nothing, not even by two tabs
 * reacting to the same change (the first claims it in IndexedDB). Returns whether it sent.
 */
export async function register(
  config: ApiConfig,
  fetcher: Fetch,
  subscription: SubscriptionJson,
  permission: RegistrationBody['permission'],
  appVersion: string | null,
): Promise<boolean> {
  const initial = await installationState();
  // Checked here, where a TypeError reaches the caller, rather than inside the transaction below.
  registrationBody(subscription, permission, appVersion, initial);
  let body: RegistrationBody | undefined;
  const now = Date.now();
  await update<InstallationState>(INSTALLATION_KEY, (current) => {
    const state = current ?? initial;
    const wanted = registrationBody(subscription, permission, appVersion, state);
    const same = (known?: { body: RegistrationBody; at: number }, freshFor = REFRESH_AFTER_MS) =>
      known !== undefined && canonical(known.body) === canonical(wanted) && now - known.at < freshFor;
    if (same(state.registered) || same(state.sending, SENDING_CLAIM_MS)) return state;
    body = wanted;
    return { ...state, sending: { body: wanted, at: now } };
  });
  if (!body) return false;
  const sent = body;
  try {
    await callApi(config, fetcher, 'PUT', installationPath(initial.id), sent);
  } catch (error) {
    await update<InstallationState>(INSTALLATION_KEY, (current) => ({ ...(current ?? initial), sending: undefined }));
    throw error;
  }
  await update<InstallationState>(INSTALLATION_KEY, (current) => ({ ...(current ?? initial), sending: undefined, registered: { body: sent, at: Date.now() } }));
  return true;
}

/**
 * Changes one field (PATCH, docs/api.md#update-installation) when the installation is registered, else only
 * remembers it for the next PUT. Returns whether it sent. A 404 (deleted on the server) forgets
 * the registration, so the next sync registers anew.
 */
export async function patchField(
  config: ApiConfig,
  fetcher: Fetch,
  field: 'user_id' | 'tags',
  value: string | null | string[],
  userIdHash: string | null = null,
): Promise<boolean> {
  const apply = (state: InstallationState): InstallationState =>
    field === 'user_id' ? { ...state, userId: value as string | null, userIdHash } : { ...state, tags: value as string[] };
  const state = await installationState();
  const registered = state.registered;
  if (!registered) {
    await update<InstallationState>(INSTALLATION_KEY, (s) => apply(s ?? state));
    return false;
  }
  // The service already has this value (from the last PUT or PATCH): nothing to send.
  if (registered.body[field] !== undefined && canonical(registered.body[field]) === canonical(value)) return false;
  try {
    // With identity verification on, the service wants the backend's proof beside a user id.
    const proof = field === 'user_id' && typeof value === 'string' && userIdHash ? { user_id_hash: userIdHash } : {};
    await callApi(config, fetcher, 'PATCH', installationPath(state.id), { [field]: value, ...proof });
  } catch (error) {
    if (error instanceof PushApiError && error.status === 404) {
      await update<InstallationState>(INSTALLATION_KEY, (s) => ({ ...apply(s ?? state), registered: undefined }));
      return false;
    }
    throw error;
  }
  await update<InstallationState>(INSTALLATION_KEY, (s) => {
    const next = apply(s ?? state);
    return next.registered ? { ...next, registered: { ...next.registered, body: { ...next.registered.body, [field]: value } } } : next;
  });
  return true;
}

export const readConfig = () => read<StoredConfig>(CONFIG_KEY);
