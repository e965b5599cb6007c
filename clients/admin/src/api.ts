/**
 * The one typed client of the dashboard's API (/admin/api, docs/operations.md "Operator
 * dashboard"). Same origin only: the session is an HttpOnly cookie the browser sends by itself;
 * state-changing calls add the session's CSRF token.
 */

import type { components, operations } from './api.generated';

// The server's shapes, generated from its OpenAPI document (openapi.json, built from
// src/admin/admin.controller.ts): `npm run openapi:admin` at the root writes both files.
type Schemas = components['schemas'];
type Json<R> = R extends { content: { 'application/json': infer T } } ? T : never;
/** The JSON body of operation K's answer with status S. */
type Answer<K extends keyof operations, S extends keyof operations[K]['responses'] = 200 & keyof operations[K]['responses']> = Json<
  operations[K]['responses'][S]
>;
/** Operation K's query parameters. */
type Query<K extends keyof operations> = NonNullable<operations[K]['parameters']['query']>;

export type DeliveryStatus = Schemas['OperatorDeliveryEntry']['status'];
export type Session = Schemas['AdminSessionResource'];
export type AppSummary = Schemas['AdminAppSummary'];
export type Statistics = Schemas['NotificationStatistics'];
export type Notification = Schemas['OperatorNotificationResource'];
export type NotificationDetail = Schemas['NotificationDetailResource'];
export type InstallationLookup = Schemas['InstallationLookup'];
export type Installation = Schemas['InstallationResource'];
export type BrowseRequest = Schemas['AdminBrowseInstallationsDto'];
export type AudienceCount = Schemas['AudienceCount'];
export type CountRequest = Schemas['CountAudienceDto'];
export type PreviewRequest = Schemas['PreviewSendDto'];
export type PlatformPreview = Schemas['PlatformPreviewResource'];
export type Delivery = Schemas['OperatorDeliveryEntry'];
export type Overview = Schemas['AdminOverview'];
export type SendRequest = Schemas['SendNotificationDto'];
export type LiveActivities = Schemas['AdminLiveActivities'];
export type Topic = Schemas['AdminTopic'];
export type TopicRequest = Schemas['PutTopicDto'];
export type Preferences = Schemas['PreferencesResource'];
export type InboxMessage = Schemas['InboxMessageResource'];
export type InboxState = NonNullable<Query<'Admin_inbox'>['state']>;

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

async function call<T>(method: string, path: string, options: { body?: unknown; headers?: Record<string, string>; signal?: AbortSignal } = {}): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json', ...options.headers };
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  if (method !== 'GET' && csrfToken) headers['x-csrf-token'] = csrfToken;
  const res = await fetch(`${BASE}${path}`, {
    method,
    headers,
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
    credentials: 'same-origin',
    signal: options.signal,
  });
  if (res.status === 204) return undefined as T;
  const json = (await res.json().catch(() => null)) as { message?: string; errors?: Record<string, string[]> } | null;
  if (!res.ok) throw new ApiError(res.status, json?.message ?? res.statusText, json?.errors);
  return json as T;
}

/** The query string of the given parameters; empty, null and undefined ones are left out. */
const query = (params: Record<string, string | number | null | undefined>) => {
  const search = new URLSearchParams(
    Object.entries(params).flatMap(([name, value]) => (value === undefined || value === null || value === '' ? [] : [[name, String(value)]])),
  );
  const text = search.toString();
  return text ? `?${text}` : '';
};

/** Basic credentials, as the login route reads them; UTF-8 safe. */
export const basicCredentials = (user: string, password: string) => `Basic ${btoa(String.fromCharCode(...new TextEncoder().encode(`${user}:${password}`)))}`;

export const api = {
  session: () => call<Answer<'Admin_session'>>('GET', '/session').then((r) => r.data),
  login: (user: string, password: string) =>
    call<Answer<'Admin_login'>>('POST', '/session', { headers: { authorization: basicCredentials(user, password) } }).then((r) => r.data),
  logout: () => call<void>('DELETE', '/session'),
  overview: () => call<Answer<'Admin_overview'>>('GET', '/overview').then((r) => r.data),
  apps: () => call<Answer<'Admin_apps'>>('GET', '/apps').then((r) => r.data),
  app: (appId: string) => call<Answer<'Admin_app'>>('GET', `/apps/${enc(appId)}`).then((r) => r.data),
  notifications: (appId: string, params: Query<'Admin_notifications'>) =>
    call<Answer<'Admin_notifications'>>('GET', `/apps/${enc(appId)}/notifications${query(params)}`),
  notification: (appId: string, id: string) => call<Answer<'Admin_notification'>>('GET', `/apps/${enc(appId)}/notifications/${enc(id)}`).then((r) => r.data),
  cancel: (appId: string, id: string) => call<Answer<'Admin_cancel'>>('POST', `/apps/${enc(appId)}/notifications/${enc(id)}/cancel`).then((r) => r.data),
  send: (appId: string, body: SendRequest) => call<Answer<'Admin_send', 202>>('POST', `/apps/${enc(appId)}/notifications`, { body }).then((r) => r.data),
  installations: (appId: string, params: Query<'Admin_installations'>) =>
    call<Answer<'Admin_installations'>>('GET', `/apps/${enc(appId)}/installations${query(params)}`).then((r) => r.data),
  /** `signal`: a count no longer wanted is dropped, and the server stops its statement. */
  countAudience: (appId: string, recipients: CountRequest['recipients'], signal?: AbortSignal) =>
    call<Answer<'Composer_countAudience'>>('POST', `/apps/${enc(appId)}/audiences/count`, { body: { recipients }, signal }).then((r) => r.data),
  templates: (appId: string) => call<Answer<'Composer_templateList'>>('GET', `/apps/${enc(appId)}/templates`).then((r) => r.data),
  preview: (appId: string, body: PreviewRequest) =>
    call<Answer<'Composer_preview'>>('POST', `/apps/${enc(appId)}/notifications/preview`, { body }).then((r) => r.data),
  browseInstallations: (appId: string, body: BrowseRequest) =>
    call<Answer<'Admin_browseInstallations'>>('POST', `/apps/${enc(appId)}/installations/browse`, { body }),
  deliveries: (appId: string, id: string, params: Query<'Admin_deliveries'>) =>
    call<Answer<'Admin_deliveries'>>('GET', `/apps/${enc(appId)}/notifications/${enc(id)}/deliveries${query(params)}`),
  liveActivities: (appId: string) => call<Answer<'Admin_liveActivities'>>('GET', `/apps/${enc(appId)}/live-activities`).then((r) => r.data),
  topics: (appId: string) => call<Answer<'Admin_topics'>>('GET', `/apps/${enc(appId)}/topics`).then((r) => r.data),
  putTopic: (appId: string, key: string, body: TopicRequest) =>
    call<Answer<'Admin_putTopic'>>('PUT', `/apps/${enc(appId)}/topics/${enc(key)}`, { body }).then((r) => r.data),
  deleteTopic: (appId: string, key: string) => call<void>('DELETE', `/apps/${enc(appId)}/topics/${enc(key)}`),
  preferences: (appId: string, userId: string) =>
    call<Answer<'Admin_preferences'>>('GET', `/apps/${enc(appId)}/users/${enc(userId)}/preferences`).then((r) => r.data),
  inbox: (appId: string, userId: string, params: Query<'Admin_inbox'>) =>
    call<Answer<'Admin_inbox'>>('GET', `/apps/${enc(appId)}/users/${enc(userId)}/inbox${query(params)}`),
};

function enc(value: string) {
  return encodeURIComponent(value);
}
