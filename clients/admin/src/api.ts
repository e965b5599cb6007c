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
export type NotificationVariant = Schemas['NotificationVariant'];
export type NotificationAbTest = Schemas['NotificationAbTest'];
export type InstallationLookup = Schemas['InstallationLookup'];
export type Installation = Schemas['InstallationResource'];
export type BrowseRequest = Schemas['AdminBrowseInstallationsDto'];
export type AudienceCount = Schemas['AudienceCount'];
export type CountRequest = Schemas['CountAudienceDto'];
export type PreviewRequest = Schemas['PreviewSendDto'];
export type Template = Schemas['TemplateListEnvelope']['data'][number];
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
export type Operator = Schemas['OperatorResourceDto'];
export type Grant = Schemas['OperatorGrantResource'];
export type OperatorRole = Grant['role'];
export type OperatorSession = Schemas['OperatorSessionResource'];
export type AuditEntry = Schemas['AuditEntryResource'];
export type AdmittedDomain = Schemas['DomainResource'];
export type OidcSettings = Schemas['OidcSettings'];
export type AuditQuery = Query<'AdminAccount_auditLog'>;
export type CredentialsSummary = Schemas['CredentialsSummaryResource'];
export type CredentialCheck = Schemas['CredentialCheckResource'];
export type ApiToken = Schemas['TokenResource'];
export type NewApiToken = Schemas['NewTokenResource'];
export type Webhook = Schemas['WebhookResource'];
export type NewWebhook = Schemas['NewWebhookResource'];
export type AppSettings = Schemas['AppSettingsResource'];
export type SettingsChange = Schemas['PatchSettingsDto'];
export type PlatformFunnel = Schemas['PlatformFunnel'];
export type AppAnalytics = Schemas['AppAnalytics'];

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
  operators: () => call<Answer<'AdminOperators_list'>>('GET', '/operators').then((r) => r.data),
  createOperator: (email: string, grants: { app_id?: string | null; role: OperatorRole }[]) =>
    call<Answer<'AdminOperators_create', 201>>('POST', '/operators', { body: { email, grants } }),
  setGrants: (id: string, grants: { app_id?: string | null; role: OperatorRole }[]) =>
    call<Answer<'AdminOperators_setGrants'>>('PUT', `/operators/${enc(id)}/grants`, { body: { grants } }).then((r) => r.data),
  invite: (id: string) => call<Answer<'AdminOperators_invite', 201>>('POST', `/operators/${enc(id)}/invitation`).then((r) => r.data),
  disableOperator: (id: string) => call<Answer<'AdminOperators_disable'>>('POST', `/operators/${enc(id)}/disable`).then((r) => r.data),
  acceptInvitation: (token: string, password: string) =>
    call<Answer<'AdminOperators_accept'>>('POST', '/invitations/accept', { body: { token, password } }).then((r) => r.data),
  domains: () => call<Answer<'AdminOperators_domains'>>('GET', '/operator-domains').then((r) => r.data),
  allowDomain: (domain: string, role: OperatorRole) =>
    call<Answer<'AdminOperators_allowDomain'>>('PUT', `/operator-domains/${enc(domain)}`, { body: { role } }).then((r) => r.data),
  removeDomain: (domain: string) => call<void>('DELETE', `/operator-domains/${enc(domain)}`),
  /** Whether the login page offers OIDC sign-in; its start is a link, not a call (docs/api.md#oidc). */
  oidc: () => call<Answer<'AdminOidc_settings'>>('GET', '/oidc').then((r) => r.data),
  oidcStartUrl: `${BASE}/oidc/start`,
  sessions: () => call<Answer<'AdminAccount_sessions'>>('GET', '/sessions').then((r) => r.data),
  revokeSession: (id: string) => call<void>('DELETE', `/sessions/${enc(id)}`),
  auditLog: (params: AuditQuery) => call<Answer<'AdminAccount_auditLog'>>('GET', `/audit-log${query(params)}`),

  // An app's owner pages (docs/api.md#apps-and-credentials-in-the-dashboard).
  createApp: (name: string) => call<Answer<'AppsConsole_createApp', 201>>('POST', '/apps', { body: { name } }).then((r) => r.data),
  credentials: (appId: string) => call<Answer<'AppsConsole_credentials'>>('GET', `/apps/${enc(appId)}/credentials`).then((r) => r.data),
  putCredentials: (appId: string, provider: 'apns' | 'fcm' | 'web-push' | 'hms', body: object) =>
    call<Answer<'AppsConsole_putApns'>>('PUT', `/apps/${enc(appId)}/credentials/${provider}`, { body }).then((r) => r.data),
  removeCredentials: (appId: string, provider: string) =>
    call<Answer<'AppsConsole_removeCredentials'>>('DELETE', `/apps/${enc(appId)}/credentials/${enc(provider)}`).then((r) => r.data),
  checkCredentials: (appId: string) => call<Answer<'AppsConsole_check'>>('POST', `/apps/${enc(appId)}/credentials/check`, { body: {} }).then((r) => r.data),
  tokens: (appId: string) => call<Answer<'AppsConsole_tokens'>>('GET', `/apps/${enc(appId)}/tokens`).then((r) => r.data),
  createToken: (appId: string, body: Schemas['CreateTokenDto']) =>
    call<Answer<'AppsConsole_createToken', 201>>('POST', `/apps/${enc(appId)}/tokens`, { body }).then((r) => r.data),
  revokeToken: (appId: string, id: string) => call<Answer<'AppsConsole_revokeToken'>>('DELETE', `/apps/${enc(appId)}/tokens/${enc(id)}`).then((r) => r.data),
  webhooks: (appId: string) => call<Answer<'AppsConsole_webhooks'>>('GET', `/apps/${enc(appId)}/webhooks`).then((r) => r.data),
  createWebhook: (appId: string, body: Schemas['CreateWebhookDto']) =>
    call<Answer<'AppsConsole_createWebhook', 201>>('POST', `/apps/${enc(appId)}/webhooks`, { body }).then((r) => r.data),
  deleteWebhook: (appId: string, id: string) =>
    call<Answer<'AppsConsole_deleteWebhook'>>('DELETE', `/apps/${enc(appId)}/webhooks/${enc(id)}`).then((r) => r.data),
  settings: (appId: string) => call<Answer<'AppsConsole_settings'>>('GET', `/apps/${enc(appId)}/settings`).then((r) => r.data),
  updateSettings: (appId: string, body: SettingsChange) =>
    call<Answer<'AppsConsole_updateSettings'>>('PATCH', `/apps/${enc(appId)}/settings`, { body }).then((r) => r.data),

  // Analytics (docs/api.md#analytics).
  analytics: (appId: string, days: number) => call<Answer<'Analytics_app'>>('GET', `/apps/${enc(appId)}/analytics${query({ days })}`).then((r) => r.data),
  funnel: (appId: string, id: string) => call<Answer<'Analytics_funnel'>>('GET', `/apps/${enc(appId)}/notifications/${enc(id)}/funnel`).then((r) => r.data),
  /** A link, not a call: the browser downloads the CSV with the session cookie. */
  traceCsvUrl: (appId: string, id: string) => `${BASE}/apps/${enc(appId)}/notifications/${enc(id)}/trace.csv`,
};

/** Whether the session's grants give `role` on every app (the operators, the audit log of everything). */
export const everywhere = (session: Session, role: OperatorRole) => {
  const rank = ['viewer', 'editor', 'owner'];
  return session.grants.some((g) => g.app_id === null && rank.indexOf(g.role) >= rank.indexOf(role));
};

function enc(value: string) {
  return encodeURIComponent(value);
}
