/**
 * The one typed client of the dashboard's API (/admin/api, docs/operations.md "Operator
 * dashboard"). Same origin only: the session is an HttpOnly cookie the browser sends by itself;
 * state-changing calls add the session's CSRF token.
 */

import type { DeliveryStatus, NotificationStatus, Platform, RecipientKind } from './vocabulary';

export type { DeliveryStatus, NotificationStatus, Platform } from './vocabulary';

export interface Session {
  user: string;
  csrf_token: string;
  expires_at: string;
}

export interface AppSummary {
  id: string;
  name: string;
  created_at: string;
  installations: Record<Platform, number> & { total: number };
  credentials: {
    apns: { key_id: string; team_id: string; topic: string; production: boolean } | null;
    fcm: { project_id: string; client_email: string } | null;
    web_push: { subject: string; public_key: string } | null;
  };
  notifications_24h: number;
}

export interface Statistics {
  users: number;
  installations: number;
  accepted: number;
  received: number;
  displayed: number;
  opened: number;
  failed: number;
  skipped: number;
}

export interface Notification {
  id: string;
  notification: {
    title: string;
    body: string;
    image_url: string | null;
    action_url: string | null;
    localizations: Record<string, Record<string, string>> | null;
  };
  data: Record<string, unknown> | null;
  options: Record<string, unknown> | null;
  target_users: number;
  statistics: Statistics;
  created_at: string;
  processing_started_at: string | null;
  completed_at: string | null;
  send_at: string | null;
  canceled_at: string | null;
  status: NotificationStatus;
  cancelable: boolean;
  target: { kind: RecipientKind; users: number | null; tags: string[] | null };
}

export interface MinutePoint {
  minute: string;
  accepted: number;
  failed: number;
  skipped: number;
  retried: number;
}

export interface NotificationDetail extends Notification {
  minutes: MinutePoint[];
}

export interface Page<T> {
  data: T[];
  meta: { next_cursor: string | null };
}

export interface Installation {
  id: string;
  installation_id: string;
  platform: Platform;
  permission: string;
  device: Record<string, string | null>;
  user_id: string | null;
  registered_at: string;
  last_seen_at: string;
  identifier_updated_at: string | null;
  permission_updated_at: string | null;
  invalidated_at: string | null;
  invalid_reason: string | null;
  tags: string[];
}

export interface InstallationLookup {
  installation: Installation;
  notifications: (Notification & { delivery: { status: DeliveryStatus; reason: string | null; updated_at: string } })[];
}

export interface Delivery {
  installation_id: string;
  user_id: string | null;
  platform: Platform;
  status: DeliveryStatus;
  reason: string | null;
  attempts: number;
  scheduled_for: string | null;
  updated_at: string;
  received_at: string | null;
  displayed_at: string | null;
  opened_at: string | null;
}

export interface QueueDepth {
  name: string;
  counts: Record<string, number>;
}

export interface WebhookTrouble {
  id: string;
  app_id: string;
  url: string;
  type: string;
  subject_id: string;
  status: 'pending' | 'failed';
  attempts: number;
  last_error: string | null;
  created_at: string;
  finished_at: string | null;
}

export interface Overview {
  minutes: MinutePoint[];
  queues: QueueDepth[] | null;
  /** Webhook messages given up in the last `hours` hours, those being retried, and the latest of them. */
  webhooks: { hours: number; failed: number; retrying: number; recent: WebhookTrouble[] };
}

export interface SendRequest {
  recipients: { user_ids: string[] } | { installation_ids: string[] };
  notification: { title: string; body: string; action_url?: string };
}

/** A refused call: its status, message and, for a 422, the errors per field (docs/api.md#errors). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly errors: Record<string, string[]> = {},
  ) {
    super(message);
  }
}

let csrfToken: string | null = null;
export const setCsrfToken = (token: string | null) => {
  csrfToken = token;
};

const BASE = '/admin/api';

async function call<T>(method: string, path: string, options: { body?: unknown; headers?: Record<string, string> } = {}): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json', ...options.headers };
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  if (method !== 'GET' && csrfToken) headers['x-csrf-token'] = csrfToken;
  const res = await fetch(`${BASE}${path}`, {
    method,
    headers,
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
    credentials: 'same-origin',
  });
  if (res.status === 204) return undefined as T;
  const json = (await res.json().catch(() => null)) as { message?: string; errors?: Record<string, string[]> } | null;
  if (!res.ok) throw new ApiError(res.status, json?.message ?? res.statusText, json?.errors);
  return json as T;
}

const query = (params: Record<string, string | undefined>) => {
  const search = new URLSearchParams(Object.entries(params).filter((entry): entry is [string, string] => !!entry[1]));
  const text = search.toString();
  return text ? `?${text}` : '';
};

/** Basic credentials, as the login route reads them; UTF-8 safe. */
export const basicCredentials = (user: string, password: string) =>
  `Basic ${btoa(String.fromCharCode(...new TextEncoder().encode(`${user}:${password}`)))}`;

export const api = {
  session: () => call<{ data: Session | null }>('GET', '/session').then((r) => r.data),
  login: (user: string, password: string) =>
    call<{ data: Session }>('POST', '/session', { headers: { authorization: basicCredentials(user, password) } }).then((r) => r.data),
  logout: () => call<void>('DELETE', '/session'),
  overview: () => call<{ data: Overview }>('GET', '/overview').then((r) => r.data),
  apps: () => call<{ data: AppSummary[] }>('GET', '/apps').then((r) => r.data),
  app: (appId: string) => call<{ data: { id: string; name: string; created_at: string } }>('GET', `/apps/${enc(appId)}`).then((r) => r.data),
  notifications: (appId: string, params: { cursor?: string; search?: string; limit?: string }) =>
    call<Page<Notification>>('GET', `/apps/${enc(appId)}/notifications${query(params)}`),
  notification: (appId: string, id: string) =>
    call<{ data: NotificationDetail }>('GET', `/apps/${enc(appId)}/notifications/${enc(id)}`).then((r) => r.data),
  cancel: (appId: string, id: string) =>
    call<{ data: Notification }>('POST', `/apps/${enc(appId)}/notifications/${enc(id)}/cancel`).then((r) => r.data),
  send: (appId: string, body: SendRequest) =>
    call<{ data: Notification }>('POST', `/apps/${enc(appId)}/notifications`, { body }).then((r) => r.data),
  installations: (appId: string, params: { installation_id?: string; user_id?: string }) =>
    call<{ data: InstallationLookup[] }>('GET', `/apps/${enc(appId)}/installations${query(params)}`).then((r) => r.data),
  deliveries: (appId: string, id: string, params: { status?: string; reason?: string; cursor?: string; limit?: string }) =>
    call<Page<Delivery>>('GET', `/apps/${enc(appId)}/notifications/${enc(id)}/deliveries${query(params)}`),
};

function enc(value: string) {
  return encodeURIComponent(value);
}
