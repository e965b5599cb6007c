import { ApiConfig, callApi, Fetch, PushApiError } from './shared/api';
import { browserPermission, INSTALLATION_KEY, InstallationState, readConfig, register } from './shared/installation';
import { read, update } from './shared/store';

/** What our service puts in a Web Push message (docs/api.md#what-a-device-receives). */
export interface PushPayload {
  notification_id: string;
  title: string;
  body: string;
  image_url?: string;
  action_url?: string;
  data?: Record<string, unknown>;
  /** `options.web` of the send (docs/api.md#platform-fields). */
  icon?: string;
  badge?: string;
  tag?: string;
  require_interaction?: boolean;
  renotify?: boolean;
  silent?: boolean;
  actions?: PushAction[];
}

/**
 * A declarative push message (docs/api.md#declarative-web-push; WebKit, "Meet Declarative Web Push"):
 * Safari 18.4+ shows it without the worker; other browsers hand it to the worker, which shows it the same way.
 */
export interface DeclarativePushPayload {
  web_push: 8030;
  notification: {
    title: string;
    body?: string;
    /** The URL a click opens. */
    navigate: string;
    lang?: string;
    dir?: 'auto' | 'ltr' | 'rtl';
    silent?: boolean;
    tag?: string;
    icon?: string;
    /** The app's badge count, set with the Badging API where the browser has it. */
    app_badge?: number;
    /** Ours: the notification id and the send's data. */
    data?: { notification_id?: string; data?: Record<string, unknown> };
  };
  mutable?: boolean;
}

/** A button of the notification: a click opens `url` (else `action_url`) and reports `opened` with `action`. */
export interface PushAction {
  action: string;
  title: string;
  url?: string;
}

/** A notification to show: `showNotification(title, options)`. */
export interface NotificationDisplay {
  title: string;
  options: NotificationOptions & { image?: string };
}

export type EventType = 'received' | 'displayed' | 'opened';

/** A report waiting for the network (docs/api.md#reads-and-events). */
export interface PendingReport {
  notification_id: string;
  installation_id: string;
  type: EventType;
  occurred_at: string;
  /** The button clicked, with `opened` (docs/api.md#web-action-buttons). */
  action?: string;
}

export interface PushWorkerOptions {
  /**
   * Changes what is shown: receives the payload and the notification the SDK would show, returns
   * the one to show, or `null` to show nothing (then `displayed` is not reported; browsers may
   * show their own generic notification instead, since a push must be visible).
   */
  render?: (payload: PushPayload, display: NotificationDisplay) => NotificationDisplay | null | Promise<NotificationDisplay | null>;
  /** `icon` and `badge` for every notification. */
  icon?: string;
  badge?: string;
  /** Override what the page stored at init (it normally configures the worker). */
  baseUrl?: string;
  token?: string;
  /** Replaces the global `fetch` (tests). */
  fetch?: Fetch;
}

// The parts of the service worker scope the SDK uses (the DOM library lacks its event types).
interface ExtendableEvent extends Event {
  waitUntil(promise: Promise<unknown>): void;
}
interface PushEvent extends ExtendableEvent {
  readonly data: { json(): unknown; text(): string } | null;
}
interface NotificationEvent extends ExtendableEvent {
  readonly notification: Notification;
  readonly action: string;
}
interface PushSubscriptionChangeEvent extends ExtendableEvent {
  readonly newSubscription: PushSubscription | null;
  readonly oldSubscription: PushSubscription | null;
}
interface WindowClient {
  readonly url: string;
  focus(): Promise<WindowClient>;
  navigate(url: string): Promise<WindowClient | null>;
}
export interface ServiceWorkerScope {
  readonly registration: ServiceWorkerRegistration & { sync?: { register(tag: string): Promise<void> } };
  readonly clients: {
    matchAll(options: { type: 'window'; includeUncontrolled: boolean }): Promise<readonly WindowClient[]>;
    openWindow(url: string): Promise<WindowClient | null>;
  };
  addEventListener(type: string, listener: (event: never) => void): void;
  /** The Badging API, where the browser has it. */
  readonly navigator?: { setAppBadge?(count?: number): Promise<void> };
}

/** What the SDK keeps in a shown notification's `data.pns`. */
interface PnsData {
  /** Null for a declarative message of another sender, which carries none: nothing is reported for it. */
  notification_id: string | null;
  action_url: string | null;
  /** Each button's URL (null: `action_url`), by its action. */
  actions?: Record<string, string | null>;
}

/** Reports kept for later are dropped beyond this many (oldest first). */
const OUTBOX_LIMIT = 200;
const OUTBOX_KEY = 'outbox';
export const SYNC_TAG = 'pns-reports';

export interface PushWorker {
  /** What the `push` listener does; returns once shown and reported (or queued). */
  handlePush(payload: unknown): Promise<void>;
  /** What the `notificationclick` listener does with the clicked notification and button (`''`: its body). */
  handleNotificationClick(notification: Notification, action?: string): Promise<void>;
  /** Sends the reports that are waiting; runs on every event and on Background Sync. */
  flushReports(): Promise<void>;
}

const isPayload = (value: unknown): value is PushPayload =>
  typeof value === 'object' && value !== null && typeof (value as PushPayload).notification_id === 'string';

/** RFC 8030's number marks a declarative message; it needs a title and a navigate URL. */
const isDeclarative = (value: unknown): value is DeclarativePushPayload => {
  const notification = (value as DeclarativePushPayload | null)?.notification;
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as DeclarativePushPayload).web_push === 8030 &&
    typeof notification === 'object' &&
    notification !== null &&
    typeof notification.title === 'string' &&
    typeof notification.navigate === 'string'
  );
};

/**
 * Installs the `push`, `notificationclick`, `pushsubscriptionchange` and `sync` listeners. Call
 * it once, at the top level of your service worker script (browsers only dispatch to listeners
 * added during the first evaluation).
 */
export function setupPushWorker(options: PushWorkerOptions = {}, scope: ServiceWorkerScope = self as unknown as ServiceWorkerScope): PushWorker {
  const fetcher: Fetch = options.fetch ?? ((input, init) => fetch(input, init));

  async function api(): Promise<ApiConfig | undefined> {
    const stored = await readConfig();
    const baseUrl = options.baseUrl ?? stored?.baseUrl;
    const token = options.token ?? stored?.token;
    return baseUrl && token ? { baseUrl, token } : undefined;
  }

  async function send(report: PendingReport, config: ApiConfig): Promise<void> {
    const { notification_id, ...body } = report;
    await callApi(config, fetcher, 'POST', `/notifications/${encodeURIComponent(notification_id)}/events`, body);
  }

  /** Sends a report; one that failed for a passing reason waits in the outbox for the next chance. */
  async function report(notificationId: string, type: EventType, action?: string): Promise<void> {
    const occurred_at = new Date().toISOString();
    try {
      const [config, state] = await Promise.all([api(), read<InstallationState>(INSTALLATION_KEY)]);
      if (!config || !state) return; // never configured by a page: nothing to report to
      const pending: PendingReport = { notification_id: notificationId, installation_id: state.id, type, occurred_at, ...(action ? { action } : {}) };
      try {
        await send(pending, config);
      } catch (error) {
        if (error instanceof PushApiError && !error.retryable) return; // refused for good (404, 422...)
        await update<PendingReport[]>(OUTBOX_KEY, (outbox = []) => [
          ...outbox.filter((r) => !(r.notification_id === notificationId && r.type === type)).slice(-(OUTBOX_LIMIT - 1)),
          pending,
        ]);
        await scope.registration.sync?.register(SYNC_TAG).catch(() => undefined);
      }
    } catch {
      // Storage unavailable: a report is never worth failing the event for.
    }
  }

  async function flushReports(): Promise<void> {
    try {
      const [config, outbox] = await Promise.all([api(), read<PendingReport[]>(OUTBOX_KEY)]);
      if (!config || !outbox?.length) return;
      const settled: PendingReport[] = [];
      for (const pending of outbox) {
        try {
          await send(pending, config);
          settled.push(pending);
        } catch (error) {
          if (error instanceof PushApiError && !error.retryable) settled.push(pending);
          else break; // still offline: keep the rest for the next chance
        }
      }
      const done = new Set(settled.map((r) => `${r.notification_id} ${r.type} ${r.occurred_at}`));
      if (done.size > 0) {
        await update<PendingReport[]>(OUTBOX_KEY, (current = []) => current.filter((r) => !done.has(`${r.notification_id} ${r.type} ${r.occurred_at}`)));
      }
    } catch {
      // as above
    }
  }

  /** Shows a declarative message as Safari would: its title, body, language and sound; a click opens `navigate`; reported as ours when it carries our id. */
  async function showDeclarative({ notification: n }: DeclarativePushPayload): Promise<void> {
    const id = typeof n.data?.notification_id === 'string' ? n.data.notification_id : null;
    const pns: PnsData = { notification_id: id, action_url: n.navigate };
    const shown = scope.registration.showNotification(n.title, {
      ...(n.body === undefined ? {} : { body: n.body }),
      ...(n.lang === undefined ? {} : { lang: n.lang }),
      ...(n.dir === undefined ? {} : { dir: n.dir }),
      ...(n.silent === undefined ? {} : { silent: n.silent }),
      ...(n.tag === undefined ? {} : { tag: n.tag }),
      icon: n.icon ?? options.icon,
      badge: options.badge,
      data: { ...(n.data?.data === undefined ? {} : { data: n.data.data }), pns },
    });
    await Promise.all([
      id === null ? undefined : report(id, 'received'),
      id === null ? shown : shown.then(() => report(id, 'displayed')),
      n.app_badge === undefined ? undefined : scope.navigator?.setAppBadge?.(n.app_badge).catch(() => undefined),
      flushReports(),
    ]);
  }

  async function handlePush(payload: unknown): Promise<void> {
    if (isDeclarative(payload)) return showDeclarative(payload);
    if (!isPayload(payload)) return; // not one of ours: another handler of the app may show it
    const id = payload.notification_id;
    const reports = [report(id, 'received'), flushReports()];
    const buttons = payload.actions ?? [];
    // Each button's URL, by its action, for the click (docs/api.md#web-action-buttons).
    const pns: PnsData = {
      notification_id: id,
      action_url: payload.action_url ?? null,
      ...(buttons.length > 0 ? { actions: Object.fromEntries(buttons.map((b) => [b.action, b.url ?? null])) } : {}),
    };
    const display: NotificationDisplay = {
      title: payload.title,
      options: {
        body: payload.body,
        // The same notification sent again replaces the shown one instead of stacking.
        tag: payload.tag ?? id,
        icon: payload.icon ?? options.icon,
        badge: payload.badge ?? options.badge,
        image: payload.image_url,
        data: { ...(payload.data === undefined ? {} : { data: payload.data }), pns },
        ...(payload.require_interaction === undefined ? {} : { requireInteraction: payload.require_interaction }),
        ...(payload.renotify === undefined ? {} : { renotify: payload.renotify }),
        ...(payload.silent === undefined ? {} : { silent: payload.silent }),
        ...(buttons.length > 0 ? { actions: buttons.map(({ action, title }) => ({ action, title })) } : {}),
      },
    };
    let shown: NotificationDisplay | null;
    try {
      shown = options.render ? await options.render(payload, display) : display;
    } catch {
      shown = display; // a failing hook must not leave the push invisible
    }
    if (shown) {
      const data = { ...(shown.options.data as Record<string, unknown> | undefined), pns };
      await scope.registration.showNotification(shown.title, { ...shown.options, data });
      reports.push(report(id, 'displayed'));
    }
    await Promise.all(reports);
  }

  async function open(actionUrl: string | null): Promise<void> {
    const scopeUrl = scope.registration.scope;
    // Deep links (myapp://...) are for mobile apps: a browser opens the site instead.
    const target = actionUrl && /^https?:\/\//i.test(actionUrl) ? actionUrl : scopeUrl;
    const windows = await scope.clients.matchAll({ type: 'window', includeUncontrolled: true });
    const focus = (client: WindowClient | null) => client?.focus().catch(() => client);
    const exact = windows.find((client) => client.url === target);
    if (exact) return void (await focus(exact));
    const origin = new URL(target).origin;
    const sameSite = windows.find((client) => new URL(client.url).origin === origin);
    if (sameSite) {
      // Reuse the open tab of the site rather than piling up new ones.
      const navigated = await sameSite.navigate(target).catch(() => null);
      if (navigated) return void (await focus(navigated));
    }
    await scope.clients.openWindow(target);
  }

  async function handleNotificationClick(notification: Notification, action = ''): Promise<void> {
    notification.close();
    const pns = (notification.data as { pns?: PnsData } | null)?.pns;
    if (!pns) return;
    // A button of ours opens its own URL, else the notification's; it is reported with `opened`.
    const button = action && pns.actions && Object.hasOwn(pns.actions, action) ? action : undefined;
    const url = (button && pns.actions![button]) || pns.action_url;
    // Open at once (a click allows opening a window only for a short while); report alongside.
    const reported = pns.notification_id === null ? undefined : report(pns.notification_id, 'opened', button);
    await Promise.all([open(url).catch(() => undefined), reported, flushReports()]);
  }

  /** The browser replaced the subscription: register the new one, with no page open. */
  async function resubscribe(event: PushSubscriptionChangeEvent): Promise<void> {
    const config = await readConfig();
    if (!config) return;
    const subscription =
      event.newSubscription ??
      (await scope.registration.pushManager.subscribe(
        event.oldSubscription?.options ?? { userVisibleOnly: true, applicationServerKey: config.vapidPublicKey },
      ));
    const permission = typeof Notification === 'undefined' ? 'granted' : browserPermission(Notification.permission);
    const overridden = { ...config, baseUrl: options.baseUrl ?? config.baseUrl, token: options.token ?? config.token };
    await register(overridden, fetcher, subscription.toJSON(), permission, config.appVersion);
  }

  scope.addEventListener('push', (event: PushEvent) => {
    let payload: unknown;
    try {
      payload = event.data?.json();
    } catch {
      payload = undefined;
    }
    event.waitUntil(handlePush(payload));
  });
  scope.addEventListener('notificationclick', (event: NotificationEvent) => event.waitUntil(handleNotificationClick(event.notification, event.action)));
  scope.addEventListener('pushsubscriptionchange', (event: PushSubscriptionChangeEvent) => event.waitUntil(resubscribe(event).catch(() => undefined)));
  scope.addEventListener('sync', (event: ExtendableEvent & { tag?: string }) => {
    if (event.tag === SYNC_TAG) event.waitUntil(flushReports());
  });
  return { handlePush, handleNotificationClick, flushReports };
}
