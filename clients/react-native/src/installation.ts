import { ApiConfig, callApi, Fetch, installationPath, PushApiError } from './api';
import type { Permission, Platform } from './adapters/types';

/** AsyncStorage's shape (@react-native-async-storage/async-storage, MMKV wrappers, expo-sqlite/kv-store): the app passes one. */
export interface StorageLike {
  getItem(key: string): Promise<string | null>;
  setItem(key: string, value: string): Promise<void>;
}

export const INSTALLATION_KEY = 'pns:installation';

/** The body of `PUT /api/v1/installations/{id}` the SDK sends (docs/api.md#register-installation). */
export interface RegistrationBody {
  platform: Platform;
  push_token: string;
  permission: Permission;
  device: { app_version: string | null; os_version: string | null; model: string | null; locale: string | null; timezone: string | null };
  user_id?: string | null;
  tags?: string[];
  live_activity_start_tokens?: Record<string, string>;
}

/** The installation as this device keeps it. */
export interface InstallationState {
  id: string;
  /** What the app asked for; `undefined` while it never called setUser / setTags / setLiveActivityStartToken. */
  userId?: string | null;
  userIdHash?: string | null;
  tags?: string[];
  liveActivityStartTokens?: Record<string, string>;
  /** What the service holds (the last PUT, with the PATCHes since), and when it last heard from us. */
  registered?: { body: RegistrationBody; at: number };
}

/** An unchanged installation is still refreshed once a day, so `last_seen_at` stays meaningful. */
export const REFRESH_AFTER_MS = 24 * 60 * 60 * 1000;

/** The fields a PATCH may carry (docs/api.md#update-installation); `platform` cannot change. */
const PATCHABLE = ['push_token', 'permission', 'device', 'user_id', 'tags', 'live_activity_start_tokens'] as const;

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

/** A random (v4) UUID: the platform's where it has one, else from Math.random (an identifier, not a secret). */
export function newInstallationId(): string {
  const crypto = (globalThis as { crypto?: { randomUUID?: () => string } }).crypto;
  if (crypto?.randomUUID) return crypto.randomUUID();
  const hex = Array.from({ length: 32 }, () => Math.floor(Math.random() * 16).toString(16));
  hex[12] = '4';
  hex[16] = ((parseInt(hex[16], 16) & 0x3) | 0x8).toString(16);
  const s = hex.join('');
  return `${s.slice(0, 8)}-${s.slice(8, 12)}-${s.slice(12, 16)}-${s.slice(16, 20)}-${s.slice(20)}`;
}

export async function readState(storage: StorageLike, initialId?: string): Promise<InstallationState> {
  const stored = await storage.getItem(INSTALLATION_KEY);
  if (stored) return JSON.parse(stored) as InstallationState;
  const state: InstallationState = { id: initialId ?? newInstallationId() };
  await writeState(storage, state);
  return state;
}

export const writeState = (storage: StorageLike, state: InstallationState) => storage.setItem(INSTALLATION_KEY, JSON.stringify(state));

/** The body the service should hold now: the device's token and permission and what the app set. */
export function wantedBody(
  state: InstallationState,
  token: { platform: Platform; token: string },
  permission: Permission,
  device: RegistrationBody['device'],
): RegistrationBody {
  const body: RegistrationBody = { platform: token.platform, push_token: token.token, permission, device };
  if (state.userId !== undefined) body.user_id = state.userId;
  if (state.tags !== undefined) body.tags = state.tags;
  if (state.liveActivityStartTokens !== undefined && token.platform === 'ios') body.live_activity_start_tokens = state.liveActivityStartTokens;
  return body;
}

/** The hash goes beside a user id, and beside a new token of an installation bound to a user (docs/api.md#identity-verification). */
function withProof(change: Partial<RegistrationBody>, state: InstallationState): Record<string, unknown> {
  const binds = typeof change.user_id === 'string';
  const newToken = change.push_token !== undefined || change.live_activity_start_tokens !== undefined;
  return state.userIdHash && typeof state.userId === 'string' && (binds || newToken) ? { ...change, user_id_hash: state.userIdHash } : change;
}

/**
 * Brings the service up to `wanted`: a PUT when it holds nothing of ours, another platform, or
 * nothing newer than a day; else a PATCH of the fields that changed (none: nothing is sent). A
 * PATCH answered 404 (the installation was deleted) registers anew. Returns the new state.
 */
export async function reconcile(
  config: ApiConfig,
  fetcher: Fetch,
  state: InstallationState,
  wanted: RegistrationBody,
  now: number,
): Promise<InstallationState> {
  const known = state.registered;
  const put = async () => {
    await callApi(config, fetcher, 'PUT', installationPath(state.id), withProof(wanted, state));
    return { ...state, registered: { body: wanted, at: now } };
  };
  if (!known || known.body.platform !== wanted.platform || now - known.at >= REFRESH_AFTER_MS) return put();
  const change: Partial<RegistrationBody> = {};
  for (const field of PATCHABLE) {
    if (wanted[field] !== undefined && canonical(wanted[field]) !== canonical(known.body[field])) Object.assign(change, { [field]: wanted[field] });
  }
  // `unknown` cannot be reported back by a PATCH; the daily PUT carries it.
  if (change.permission === 'unknown') delete change.permission;
  if (Object.keys(change).length === 0) return state;
  try {
    await callApi(config, fetcher, 'PATCH', installationPath(state.id), withProof(change, state));
  } catch (error) {
    if (error instanceof PushApiError && error.status === 404) return put();
    throw error;
  }
  return { ...state, registered: { body: { ...known.body, ...change }, at: now } };
}
