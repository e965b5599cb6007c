import { Injectable, Logger } from '@nestjs/common';
import { AppsService } from '../apps/apps.service';
import type { AppSettings } from '../apps/app-settings';
import { AudienceBusyError, AudienceTimedOutError, NotFoundError, ValidationFailedError } from '../common/errors';
import { AudienceSlots } from '../notifications/audiences/audience-slots';
import { PLATFORMS } from '../common/platform';
import { CredentialsService } from '../credentials/credentials.service';
import { InstallationsService } from '../installations/installations.service';
import { operatorView } from '../notifications/notification-status';
import { DeliveryTraceService } from '../notifications/trace/delivery-trace.service';
import { operatorDelivery } from '../notifications/trace/delivery.resource';
import type { DeliveryStatus } from '../common/vocabulary';
import { NotificationsService } from '../notifications/notifications.service';
import { AudiencesService } from '../notifications/audiences/audiences.service';
import type { FilterNode } from '../common/audience-filter';
import { LiveActivitiesService } from '../live-activities/live-activities.service';
import { LiveActivityChannelsService } from '../live-activities/live-activity-channels.service';
import { QueueInspector } from '../queue/queue-inspector';
import { WebhooksService } from '../webhooks/webhooks.service';
import type { InboxState } from '../inbox/inbox.repository';
import { InboxService } from '../inbox/inbox.service';
import type { PutTopicDto } from '../topics/dto/topic.dto';
import { PreferencesService } from '../topics/preferences.service';
import { TopicsService } from '../topics/topics.service';
import { AdminRepository, MinuteCountRow } from './admin.repository';

export const OVERVIEW_MINUTES = 60;
const NOTIFICATION_MINUTES_LIMIT = 4 * 1500;
/** An app deleted while the list was read: its settings are gone too. */
const NO_SETTINGS: AppSettings = { frequency_cap: null, quiet_hours: null, identity_verification: false, inbox_days: 90 };

const LOOKUP_SCAN = 50;
const LOOKUP_INSTALLATIONS = 10;
const BROWSE_PAGE = 50;
const QUEUE_TIMEOUT_MS = 1_000;
export const LIVE_ACTIVITIES_LISTED = 100;
export const QUEUE_STATES = ['waiting', 'active', 'delayed', 'prioritized', 'failed'] as const;

/** Outcomes per minute, as every chart draws them; `retried`: the row became pending again. */
export interface MinutePoint {
  minute: string;
  accepted: number;
  failed: number;
  skipped: number;
  retried: number;
}

const OUTCOME_KEY = { accepted: 'accepted', failed: 'failed', skipped: 'skipped', pending: 'retried' } as const;

export function toMinutePoints(rows: MinuteCountRow[], fill?: { from: Date; minutes: number }): MinutePoint[] {
  const points = new Map<number, MinutePoint>();
  const point = (time: number) => {
    let p = points.get(time);
    if (!p) points.set(time, (p = { minute: new Date(time).toISOString(), accepted: 0, failed: 0, skipped: 0, retried: 0 }));
    return p;
  };
  if (fill) for (let i = 0; i < fill.minutes; i++) point(fill.from.getTime() + i * 60_000);
  for (const row of rows) point(new Date(row.minute).getTime())[OUTCOME_KEY[row.outcome]] += row.count;
  return [...points.values()].sort((a, b) => a.minute.localeCompare(b.minute));
}

/** What the operator dashboard shows, from the features' own services (docs/architecture.md, "The admin room"). */
@Injectable()
export class AdminService {
  private readonly logger = new Logger(AdminService.name);

  constructor(
    private readonly apps: AppsService,
    private readonly credentials: CredentialsService,
    private readonly installations: InstallationsService,
    private readonly notifications: NotificationsService,
    private readonly trace: DeliveryTraceService,
    private readonly inspector: QueueInspector,
    private readonly webhooks: WebhooksService,
    private readonly repository: AdminRepository,
    private readonly audiences: AudiencesService,
    private readonly activities: LiveActivitiesService,
    private readonly channels: LiveActivityChannelsService,
    private readonly topicsService: TopicsService,
    private readonly slots: AudienceSlots,
    private readonly preferencesService: PreferencesService,
    private readonly inboxService: InboxService,
  ) {}

  /** Every app with its installations by platform, configured providers (no secret), 24 h sends and settings. */
  /** Every app, or (`only`) those listed. */
  async listApps(only: readonly string[] | null = null) {
    const [apps, installations, recent] = await Promise.all([this.apps.list(), this.installations.countByApp(), this.notifications.countRecent(24)]);
    return Promise.all(
      apps
        .filter((app) => only === null || only.includes(app.id))
        .map(async (app) => {
          const counts = installations.get(app.id) ?? { ios: 0, android: 0, web: 0, huawei: 0 };
          const [{ apns, fcm, web_push, hms }, withSettings] = await Promise.all([this.credentials.summary(app.id), this.apps.settings(app.id)]);
          return {
            ...app,
            installations: { ...counts, total: PLATFORMS.reduce((sum, p) => sum + counts[p], 0) },
            credentials: { apns, fcm, web_push, hms },
            notifications_24h: recent.get(app.id) ?? 0,
            settings: withSettings?.settings ?? NO_SETTINGS,
          };
        }),
    );
  }

  async app(appId: string) {
    const app = await this.apps.find(appId);
    if (!app) throw new NotFoundError();
    return app;
  }

  /** Newest first; `before`: those created before that instant. */
  async listNotifications(appId: string, query: { limit: number; cursor?: string; search?: string; before?: string }) {
    await this.app(appId);
    return this.notifications.list(appId, query.limit, query.cursor, query.search, operatorView, query.before);
  }

  /** With its outcomes per minute, from the counters, never from `deliveries`. */
  async notification(appId: string, id: string) {
    const notification = await this.notifications.find(appId, id, operatorView);
    const rows = await this.repository.minutesOf(id, NOTIFICATION_MINUTES_LIMIT);
    return { ...notification, minutes: toMinutePoints(rows) };
  }

  async deliveries(appId: string, id: string, query: { limit?: string | number; cursor?: string; status?: DeliveryStatus; reason?: string }) {
    // The trace decides a bad cursor (422) before an unknown notification (404).
    const localizations = await this.notifications.find(appId, id).then(
      (n) => Object.keys(n.notification.localizations ?? {}),
      (error: unknown) => {
        if (error instanceof NotFoundError) return [];
        throw error;
      },
    );
    const limit = query.limit === undefined ? 50 : Number(query.limit);
    return this.trace.page(appId, id, limit, query.status ?? null, query.cursor, query.reason ?? null, operatorDelivery(localizations));
  }

  async cancel(appId: string, id: string) {
    await this.notifications.cancel(appId, id);
    return this.notifications.find(appId, id, operatorView);
  }

  /** As POST /api/v1/notifications does, with its validation and size checks. */
  async send(appId: string, dto: Parameters<NotificationsService['send']>[1], rawBody: unknown) {
    await this.app(appId);
    const result = await this.notifications.send(appId, dto, rawBody);
    const { id } = (JSON.parse(result.body) as { data: { id: string } }).data;
    return this.notifications.find(appId, id, operatorView);
  }

  /** Installations as a send's `recipients.filter` selects them; the first page also counts them. */
  async browseInstallations(appId: string, query: { filter?: FilterNode | null; cursor?: string | null; limit?: number | null }) {
    await this.app(appId);
    const filter = query.filter ?? null;
    const [page, count] = await Promise.all([
      // A filtered page evaluates the filter: it takes an audience slot, as the count does (429 past the limits).
      filter
        ? this.slots.run(appId, () => this.installations.browse(appId, filter, query.cursor ?? null, query.limit ?? BROWSE_PAGE))
        : this.installations.browse(appId, filter, query.cursor ?? null, query.limit ?? BROWSE_PAGE),
      query.cursor ? null : this.audiences.count(appId, filter ? { filter } : { all: true }),
    ]);
    return { data: page.installations, meta: { next_cursor: page.next, count } };
  }

  async lookUpInstallations(appId: string, query: { installation_id?: string; user_id?: string }) {
    await this.app(appId);
    if ((query.installation_id === undefined) === (query.user_id === undefined)) {
      throw ValidationFailedError.of('installation_id', 'Give either installation_id or user_id.');
    }
    const found = query.installation_id
      ? await this.installations.find(appId, query.installation_id).then(
          (installation) => [installation],
          (error: unknown) => {
            if (error instanceof NotFoundError) return [];
            throw error;
          },
        )
      : await this.installations.findByUser(appId, query.user_id!, LOOKUP_INSTALLATIONS);
    return Promise.all(
      found.map(async (installation) => ({
        installation,
        notifications: await this.notifications.lastForInstallation(appId, installation.id, LOOKUP_SCAN, operatorView),
      })),
    );
  }

  /** Newest Live Activities with their newest update, and the broadcast channels with their newest broadcast. */
  async liveActivities(appId: string) {
    await this.app(appId);
    const [activities, channels] = await Promise.all([
      this.activities.listWithLastUpdate(appId, LIVE_ACTIVITIES_LISTED),
      this.channels.listWithLastBroadcast(appId),
    ]);
    return { activities, channels, limit: LIVE_ACTIVITIES_LISTED };
  }

  /**
   * The app's topics, each with `subscribers`: the users a `recipients.topic` send would reach now
   * (the audience count's `users`, docs/api.md#count-an-audience); null when that count ran out of time.
   */
  async topics(appId: string) {
    await this.app(appId);
    const topics = await this.topicsService.list(appId);
    const listed = [];
    // One count at a time: each may scan the app's installations (a topic subscribed by default).
    for (const topic of topics) listed.push({ ...topic, subscribers: await this.subscribers(appId, topic.key) });
    return listed;
  }

  private async subscribers(appId: string, key: string): Promise<number | null> {
    try {
      return (await this.audiences.count(appId, { topic: key })).users;
    } catch (error) {
      // Timed out, refused (the app's counts are busy), or deleted since the list was read (a 422 of the count).
      if (error instanceof AudienceTimedOutError || error instanceof AudienceBusyError || error instanceof ValidationFailedError) return null;
      throw error;
    }
  }

  /** As PUT /api/v1/topics/{key} (docs/api.md#topics). */
  async putTopic(appId: string, key: string, dto: PutTopicDto) {
    await this.app(appId);
    return this.topicsService.put(appId, key, dto);
  }

  async deleteTopic(appId: string, key: string): Promise<void> {
    await this.app(appId);
    await this.topicsService.remove(appId, key);
  }

  /** As GET /api/v1/users/{user_id}/preferences (docs/api.md#preferences): any user id has some. */
  async preferences(appId: string, userId: string) {
    await this.app(appId);
    return this.preferencesService.get(appId, userId);
  }

  /** As GET /api/v1/users/{user_id}/inbox (docs/api.md#inbox): a page of one user's messages in this app. */
  async inbox(appId: string, userId: string, query: { state?: InboxState; limit?: string | number; cursor?: string }) {
    await this.app(appId);
    return this.inboxService.list(appId, userId, query.state ?? 'inbox', query.limit === undefined ? 20 : Number(query.limit), query.cursor);
  }

  /**
   * The overview of every app (`appIds` null), or of these apps only: their sends and webhooks, and no queue depths,
   * which count every app's jobs (docs/api.md#roles).
   */
  async overview(appIds: string[] | null = null) {
    const now = Date.now();
    const from = new Date(Math.floor(now / 60_000) * 60_000 - (OVERVIEW_MINUTES - 1) * 60_000);
    const [rows, queues, webhooks] = await Promise.all([
      appIds ? this.repository.minutesOfAppsSince(from, appIds) : this.repository.minutesSince(from),
      appIds ? null : this.queueDepths(),
      this.webhooks.failures(24, 20, appIds),
    ]);
    return { every_app: appIds === null, minutes: toMinutePoints(rows, { from, minutes: OVERVIEW_MINUTES }), queues, webhooks };
  }

  /** Null when Redis does not answer in time. */
  private async queueDepths() {
    let timer: NodeJS.Timeout | undefined;
    try {
      return await Promise.race([
        Promise.all(
          this.inspector.queues().map(async (queue) => ({
            name: queue.name,
            counts: (await queue.getJobCounts(...QUEUE_STATES)) as Record<(typeof QUEUE_STATES)[number], number>,
          })),
        ),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error(`no answer from Redis within ${QUEUE_TIMEOUT_MS} ms`)), QUEUE_TIMEOUT_MS);
        }),
      ]);
    } catch (error) {
      this.logger.warn(`Queue depths not read: ${(error as Error).message}`);
      return null;
    } finally {
      clearTimeout(timer);
    }
  }
}
