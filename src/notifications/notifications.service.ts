import { Injectable, Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { NotFoundError, StateConflictError, ValidationFailedError } from '../common/errors';
import { isUuid } from '../common/uuid';
import { PROVIDER_OF, RECIPIENT_KINDS } from '../common/vocabulary';
import { TopicsService } from '../topics/topics.service';
import { TemplatesService } from '../templates/templates.service';
import { liquidErrors, LiquidTexts } from '../common/liquid';
import { EnvironmentVariables } from '../config/env';
import { CredentialsService } from '../credentials/credentials.service';
import { fitProblem, oversized, PushContent } from '../delivery/providers/payloads';
import { MetricsService } from '../metrics/metrics.service';
import { FanoutSharesService } from '../delivery/fair-shares/fanout-shares.service';
import { FanoutJobs, SmallSendJobs } from '../queue/jobs';
import { SmallSendsService, StoredSend } from '../delivery/small-sends/small-sends.service';
import { SendNotificationDto } from './dto/send-notification.dto';
import type { StoredVariant } from '../common/variants';
import { IdempotencyService, keyInProgress, requestHash } from './idempotency/idempotency.service';
import { CursorPosition, cursorKey, decodeCursor, encodeCursor, InvalidCursorError } from './list-cursor';
import { NotificationResource, toNotificationResource } from './notification.resource';
import { NewNotification, NotificationRow, NotificationsRepository } from './notifications.repository';

/** An enqueue that Redis does not confirm by then is left to the worker's sweeper. */
const ENQUEUE_TIMEOUT_MS = 2_000;

export interface SendResult {
  status: number;
  /** The answer as JSON text, stored as is under an Idempotency-Key so a replay sends the same bytes (docs/api.md#idempotency). */
  body: string;
  replayed: boolean;
}

/** Accepts sends: validates, stores and queues them; the worker delivers, meeting the API only through the queue. */
@Injectable()
export class NotificationsService {
  private readonly logger = new Logger(NotificationsService.name);
  private readonly cursorKey: Buffer;

  constructor(
    private readonly notifications: NotificationsRepository,
    private readonly fanoutJobs: FanoutJobs,
    private readonly fanoutShares: FanoutSharesService,
    private readonly idempotency: IdempotencyService,
    private readonly metrics: MetricsService,
    private readonly credentials: CredentialsService,
    private readonly smallSends: SmallSendsService,
    private readonly smallSendJobs: SmallSendJobs,
    private readonly topics: TopicsService,
    private readonly templates: TemplatesService,
    config: EnvironmentVariables,
  ) {
    this.cursorKey = cursorKey(config.APP_KEY);
  }

  async send(appId: string, dto: SendNotificationDto, rawBody: unknown, idempotencyKey?: string): Promise<SendResult> {
    const id = randomUUID();
    const variants = await this.variantsOf(appId, dto);
    const { content, template } = await this.contentOf(appId, dto, id, variants);
    // The declarative payload's `navigate` is the action_url (docs/api.md#declarative-web-push).
    if (content.options?.web?.declarative && !content.action_url) {
      throw ValidationFailedError.of('notification.action_url', 'The notification.action_url field is required when options.web.declarative is true.');
    }
    await this.assertFits(appId, content);
    for (const [index, variant] of (variants ?? []).entries()) await this.assertFits(appId, { ...content, ...variant.notification }, `variants.${index}.`);
    const recipients = dto.recipients;
    const notification: NewNotification = {
      id,
      app_id: appId,
      title: content.title,
      body: content.body,
      image_url: content.image_url,
      action_url: content.action_url,
      data: content.data,
      options: content.options,
      recipient_kind: RECIPIENT_KINDS.find((kind) => recipients[kind] !== undefined)!,
      user_ids: [...new Set(recipients.user_ids ?? [])],
      installation_ids: recipients.installation_ids ? [...new Set(recipients.installation_ids)] : null,
      tags: recipients.tags ? [...new Set(recipients.tags)] : null,
      recipient_filter: recipients.filter ?? null,
      send_at: dto.send_at ? new Date(dto.send_at) : null,
      localizations: (content.localizations ?? null) as NotificationRow['localizations'],
      template: template ? { key: template.key, version: template.version } : null,
      variables: (template ? dto.template?.variables : dto.variables) ?? null,
      variants,
      ab_phase: dto.options?.ab_test ? 'sample' : null,
    };
    // A send_at in the past means now; the worker checks the time again, so an early job waits.
    const delayMs = notification.send_at ? Math.max(0, notification.send_at.getTime() - Date.now()) : 0;
    const small = this.smallSends.accepts(notification);

    if (idempotencyKey === undefined) {
      const stored = await this.store(notification, small, null);
      this.metrics.notificationsAccepted.inc();
      await this.enqueue(stored, delayMs);
      return { status: 202, body: accepted(stored.row), replayed: false };
    }

    const hash = requestHash(rawBody);
    const claim = await this.idempotency.claim(appId, idempotencyKey, hash);
    if (claim.kind === 'replay') return { status: claim.status, body: claim.body, replayed: true };
    if (claim.kind === 'stored') return this.answerStored(appId, idempotencyKey, hash, claim.notificationId);
    let stored: StoredSend | { row: NotificationRow };
    try {
      stored = await this.store(notification, small, idempotencyKey);
    } catch (error) {
      await this.idempotency.release(appId, idempotencyKey).catch(() => undefined);
      throw error;
    }
    const body = accepted(stored.row);
    // Counted once stored; a replay (above) stored nothing new and is not counted again.
    this.metrics.notificationsAccepted.inc();
    // The send stands whatever follows: a key left without its answer answers with the send once its lock runs out.
    await this.idempotency
      .complete(appId, idempotencyKey, 202, body)
      .catch((error: Error) => this.logger.warn(`Idempotency key of notification ${id} not answered now (${error.message}); it will answer with the send.`));
    await this.enqueue(stored, delayMs);
    return { status: 202, body, replayed: false };
  }

  /** What a send (or its preview) carries: its template's texts or its own, its data and options (docs/api.md#sending-with-a-template). */
  async contentOf(appId: string, dto: SendNotificationDto, id: string, variants: StoredVariant[] | null = null) {
    const topic = await this.sendTopic(appId, dto);
    // Without `notification` (a silent send, docs/api.md#silent-sends) title and body are null; with variants, the first one's (docs/api.md#variants).
    const { template, texts } = await this.textsOf(appId, '', dto.template, dto.notification ?? variants?.[0].notification ?? null, dto.options?.personalize);
    const content: PushContent = {
      id,
      ...texts,
      data: dto.data ?? template?.data ?? null,
      options: dto.options || topic ? withoutUndefined({ ...dto.options, topic }) : null,
    };
    return { content, template };
  }

  /**
   * A send's or a variant's texts (`path` its prefix: '' or `variants.1.`): its template's, or its own,
   * which options.personalize makes Liquid, checked as a template's (docs/api.md#sending-with-a-template).
   */
  private async textsOf(
    appId: string,
    path: string,
    ref: { key: string; version?: number } | undefined,
    inline: LiquidTexts | null,
    personalize: boolean | undefined,
  ): Promise<{ template: Awaited<ReturnType<TemplatesService['forSend']>> | null; texts: StoredVariant['notification'] }> {
    const template = ref ? await this.templates.forSend(appId, ref.key, ref.version, `${path}template`) : null;
    const shown = template ? { ...template.notification, localizations: template.localizations } : inline;
    if (!template && personalize && shown) {
      const errors = liquidErrors(shown, `${path}notification`);
      if (Object.keys(errors).length > 0) throw new ValidationFailedError(errors);
    }
    const texts = {
      title: shown?.title ?? null,
      body: shown?.body ?? null,
      image_url: shown?.image_url ?? null,
      action_url: shown?.action_url ?? null,
      localizations: shown?.localizations ?? null,
    };
    return { template, texts };
  }

  /**
   * A send's variants (docs/api.md#variants), each template resolved to its texts, and what they
   * cannot go with refused (docs/api.md#a-b-test-with-a-winner); null without variants.
   */
  async variantsOf(appId: string, dto: SendNotificationDto): Promise<StoredVariant[] | null> {
    const options = dto.options ?? undefined;
    if (options?.ab_test && !dto.variants) throw ValidationFailedError.of('options.ab_test', 'The options.ab_test field requires variants.');
    if (!dto.variants) return null;
    const refused = (['content_available', 'widgets', 'live_activity'] as const).find((name) => options?.[name] !== undefined);
    if (refused) throw ValidationFailedError.of('variants', `The variants field must not be given together with options.${refused}.`);
    if (options?.channels?.includes('inbox'))
      throw ValidationFailedError.of('variants', 'The variants field must not be given together with the inbox channel.');
    for (const name of ['local_time', 'throttle_per_minute'] as const) {
      if (options?.ab_test && options[name] !== undefined) {
        throw ValidationFailedError.of('options.ab_test', `The options.ab_test field must not be given together with options.${name}.`);
      }
    }
    const variants: StoredVariant[] = [];
    for (const [index, variant] of dto.variants.entries()) {
      // An inline variant's texts are Liquid with options.personalize, as the send's own (docs/api.md#liquid).
      const { template, texts } = await this.textsOf(appId, `variants.${index}.`, variant.template, variant.notification ?? null, options?.personalize);
      variants.push({
        key: variant.key,
        weight: variant.weight,
        notification: texts,
        template: template ? { key: template.key, version: template.version } : null,
        variables: (template ? variant.template?.variables : dto.variables) ?? null,
      });
    }
    return variants;
  }

  /** The send's topic (docs/api.md#topics-and-preferences): `recipients.topic` implies `options.topic`; it must exist. */
  private async sendTopic(appId: string, dto: SendNotificationDto): Promise<string | undefined> {
    const [byRecipients, byOptions] = [dto.recipients.topic, dto.options?.topic];
    if (byRecipients !== undefined && byOptions !== undefined && byRecipients !== byOptions) {
      throw ValidationFailedError.of('options.topic', 'The options.topic field must name the same topic as recipients.topic.');
    }
    if (byRecipients !== undefined) await this.topics.assertExists(appId, byRecipients, 'recipients.topic');
    else if (byOptions !== undefined) await this.topics.assertExists(appId, byOptions, 'options.topic');
    return byRecipients ?? byOptions;
  }

  /** Stores a small send with its rows (docs/api.md#small-sends), else (or if that meets a partition in the making) the notification alone. */
  private async store(notification: NewNotification, small: boolean, key: string | null): Promise<StoredSend | { row: NotificationRow }> {
    const stored = small ? await this.smallSends.store(notification, key) : null;
    return stored ?? { row: await this.notifications.insert(notification, key ?? undefined) };
  }

  /** Queues what follows a stored send: a small send's batches, else the job of its due instant (docs/api.md#due-sends), else its fan-out job. */
  private async enqueue(stored: StoredSend | { row: NotificationRow }, delayMs: number): Promise<void> {
    if ('batches' in stored) await this.queueSmallSend(stored);
    else if (delayMs > 0 && stored.row.send_at) await this.enqueueDue(stored.row.id, stored.row.send_at);
    else await this.enqueueFanout(stored.row, delayMs);
  }

  /** A key whose request died before its answer was stored: answered with the send as it stands now (docs/api.md#idempotency). */
  private async answerStored(appId: string, key: string, hash: string, notificationId: string): Promise<SendResult> {
    const row = await this.notifications.find(appId, notificationId);
    // A key lives 24 hours, its send longer; deleting the app deletes both.
    if (!row) throw keyInProgress();
    const body = accepted(row);
    if (await this.idempotency.complete(appId, key, 202, body)) return { status: 202, body, replayed: true };
    const again = await this.idempotency.claim(appId, key, hash);
    if (again.kind === 'replay') return { status: again.status, body: again.body, replayed: true };
    throw keyInProgress();
  }

  /** Queues a small send's batches (docs/api.md#small-sends), each job carrying the stored row so the worker need not read it. */
  private async queueSmallSend(stored: StoredSend): Promise<void> {
    const id = stored.row.id;
    for (const { platform, reason, count } of stored.skipped) this.metrics.recordSkipped(PROVIDER_OF[platform], reason, count);
    // Its fan-out ran here, committed: timed here (one that fell back to its fan-out job is timed by the worker).
    this.metrics.fanoutDuration.observe(stored.seconds);
    await this.withinEnqueueTimeout(id, () =>
      stored.batches.length > 0 ? this.smallSendJobs.addBatches(id, stored.batches, stored.carried) : this.fanoutJobs.add(id, 0, true),
    );
  }

  /** Cancels a notification (docs/api.md#scheduling): 200 with it, again unchanged; 409 once completed. */
  async cancel(appId: string, id: string): Promise<NotificationResource> {
    if (!isUuid(id)) throw new NotFoundError();
    const canceled = await this.notifications.cancel(appId, id);
    if (canceled) {
      if (!canceled.fanned_out_at) await this.runFanoutNow(id);
      return toNotificationResource(canceled);
    }
    const row = await this.notifications.find(appId, id);
    if (!row) throw new NotFoundError();
    if (row.canceled_at) return toNotificationResource(row);
    throw new StateConflictError('This notification has already completed.');
  }

  /** The Notification resource, or (the operator dashboard) what `view` makes of the row. */
  async find<T = NotificationResource>(appId: string, id: string, view: (row: NotificationRow) => T = toNotificationResource as never): Promise<T> {
    if (!isUuid(id)) throw new NotFoundError();
    const row = await this.notifications.find(appId, id);
    if (!row) throw new NotFoundError();
    return view(row);
  }

  /** Newest first, paged by the (created_at, id) cursor; the dashboard adds a title filter, a start date and its `view`. */
  async list<T = NotificationResource>(
    appId: string,
    limit: number,
    cursor?: string,
    titleContains?: string,
    view: (row: NotificationRow) => T = toNotificationResource as never,
    createdBefore?: string,
  ) {
    const after = cursor === undefined ? null : this.positionOf(cursor);
    const rows = await this.notifications.list(appId, limit + 1, after, titleContains || null, createdBefore ? new Date(createdBefore) : null);
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    return {
      data: page.map((row) => view(row)),
      meta: { next_cursor: rows.length > limit && last ? encodeCursor(this.cursorKey, { createdAtMicros: last.created_at_micros, id: last.id }) : null },
    };
  }

  /** How many notifications each app created in the last `hours` hours, by app id. */
  async countRecent(hours: number): Promise<Map<string, number>> {
    const rows = await this.notifications.countSince(new Date(Date.now() - hours * 3_600_000));
    return new Map(rows.map((row) => [row.app_id, row.count]));
  }

  /** The latest of the app's `scan` newest notifications that targeted an installation, with its delivery's outcome. */
  async lastForInstallation<T = NotificationResource>(
    appId: string,
    installationId: string,
    scan = 50,
    view: (row: NotificationRow) => T = toNotificationResource as never,
  ) {
    const rows = await this.notifications.lastForInstallation(appId, installationId, scan);
    return rows.map((row) => ({
      ...view(row),
      delivery: { status: row.delivery_status, reason: row.delivery_reason, updated_at: row.delivery_updated_at.toISOString() },
    }));
  }

  /** Refuses now a payload over a reachable platform's limit, localized variants included (docs/api.md#send, #localization). */
  private async assertFits(appId: string, content: PushContent, prefix = ''): Promise<void> {
    const tooLarge = oversized(content);
    if (tooLarge.length === 0) return;
    const problem = fitProblem(tooLarge, await this.credentials.platforms(appId));
    if (problem) throw ValidationFailedError.of(`${prefix}${problem.path}`, problem.message);
  }

  private positionOf(cursor: string): CursorPosition {
    try {
      return decodeCursor(this.cursorKey, cursor);
    } catch (error) {
      if (error instanceof InvalidCursorError) throw ValidationFailedError.of('cursor', 'The cursor field is invalid.');
      throw error;
    }
  }

  /**
   * Never fails the committed send: the job id is deterministic and the sweeper queues what no job holds.
   * Due now, it takes its app's window of fan-outs; a throttled send paces itself (docs/api.md#fair-sharing).
   */
  private async enqueueFanout(row: NotificationRow, delayMs = 0): Promise<void> {
    const windowed = delayMs <= 0 && !row.options?.throttle_per_minute;
    await this.withinEnqueueTimeout(row.id, () => (windowed ? this.fanoutShares.offer(row.app_id, [row.id]) : this.fanoutJobs.add(row.id, delayMs)));
  }

  /** One job per due instant, however many sends it holds (docs/api.md#due-sends); a lost one is the sweeper's. */
  private async enqueueDue(notificationId: string, sendAt: Date): Promise<void> {
    await this.withinEnqueueTimeout(notificationId, () => this.fanoutJobs.addDue(sendAt.getTime()));
  }

  /** A cancelled notification's held fan-out runs now (the sweeper does it too, should Redis be away). */
  private async runFanoutNow(notificationId: string): Promise<void> {
    await this.withinEnqueueTimeout(notificationId, () => this.fanoutJobs.runNow(notificationId));
  }

  private async withinEnqueueTimeout(notificationId: string, enqueue: () => Promise<unknown>): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        enqueue(),
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error(`no answer from Redis within ${ENQUEUE_TIMEOUT_MS} ms`)), ENQUEUE_TIMEOUT_MS);
        }),
      ]);
    } catch (error) {
      this.logger.warn(`Fan-out of notification ${notificationId} not queued now (${(error as Error).message}); the sweeper will queue it.`);
    } finally {
      clearTimeout(timer);
    }
  }
}

function accepted(row: NotificationRow): string {
  return JSON.stringify({ data: toNotificationResource(row), meta: { accepted: true } });
}

function withoutUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}
