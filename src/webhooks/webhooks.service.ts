import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { AppsRepository } from '../apps/apps.repository';
import { isUuid } from '../common/uuid';
import { WebhookHosts } from '../common/webhook-hosts';
import { EnvironmentVariables } from '../config/env';
import { appKeys, reseal, ResealTotals, seal } from '../credentials/secret-box';
import { newSecret, parseEvents, parseUrl, WebhookError } from './webhook-rules';
import { WebhookRow, WebhooksRepository } from './webhooks.repository';

export interface WebhookView {
  id: string;
  app_id: string;
  url: string;
  events: string[];
  created_at: string;
}

const NOT_PUBLIC =
  '--url must name a public host, not a private, loopback or link-local address, localhost or a single-label name (or list it in WEBHOOK_ALLOWED_HOSTS)';

/** Sealed for their row: a value copied to another webhook will not open. */
export const secretContext = (webhookId: string) => `webhooks:${webhookId}:secret_enc`;

const view = (row: WebhookRow): WebhookView => ({
  id: row.id,
  app_id: row.app_id,
  url: row.url,
  events: row.events,
  created_at: row.created_at.toISOString(),
});

@Injectable()
export class WebhooksService {
  constructor(
    private readonly webhooks: WebhooksRepository,
    private readonly apps: AppsRepository,
    private readonly config: EnvironmentVariables,
    private readonly hosts: WebhookHosts,
  ) {}

  /** Given up and retrying messages of the last `hours`, with the latest (no secret, no body); of these apps only, or every app's (null). */
  async failures(hours = 24, limit = 20, appIds: string[] | null = null) {
    const since = new Date(Date.now() - hours * 3_600_000);
    const { failed, retrying, recent } = await (appIds ? this.webhooks.troublesOf(since, limit, appIds) : this.webhooks.troubles(since, limit));
    return {
      hours,
      failed,
      retrying,
      recent: recent.map((m) => ({
        id: m.id,
        app_id: m.app_id,
        url: m.url,
        type: m.type,
        subject_id: m.subject_id,
        status: m.status,
        attempts: m.attempts,
        last_error: m.last_error,
        created_at: m.created_at.toISOString(),
        finished_at: m.finished_at?.toISOString() ?? null,
      })),
    };
  }

  /** The secret is never shown again. */
  async create(appId: string, url: string, events: string): Promise<{ id: string; url: string; events: string[]; secret: string }> {
    const parsedUrl = parseUrl(url);
    if (!this.hosts.permits(new URL(parsedUrl))) throw new WebhookError(NOT_PUBLIC);
    const parsedEvents = parseEvents(events);
    if (!isUuid(appId)) throw new WebhookError(`App ${appId} not found`);
    const id = randomUUID();
    const secret = newSecret();
    const row = await this.webhooks.insert(id, appId, parsedUrl, parsedEvents, seal(secret, secretContext(id), this.config.APP_KEY));
    if (!row) throw new WebhookError(`App ${appId} not found`);
    return { id: row.id, url: row.url, events: row.events, secret };
  }

  async list(appId: string): Promise<WebhookView[]> {
    if (!isUuid(appId) || !(await this.apps.exists(appId))) throw new WebhookError(`App ${appId} not found`);
    return (await this.webhooks.list(appId)).map(view);
  }

  /** Its messages go with it. */
  async delete(id: string): Promise<WebhookView> {
    const row = isUuid(id) ? await this.webhooks.delete(id) : undefined;
    if (!row) throw new WebhookError(`Webhook ${id} not found`);
    return view(row);
  }

  /** Re-seals what opens only under APP_KEY_PREVIOUS, in one transaction (docs/operations.md "Rotating APP_KEY"). */
  async rotateAppKey(): Promise<ResealTotals> {
    const totals: ResealTotals = { secrets: 0, resealed: 0, already_current: 0 };
    const keys = appKeys(this.config);
    const unopenable = (id: string) => () =>
      new WebhookError(`The secret of webhook ${id} opens under neither APP_KEY nor APP_KEY_PREVIOUS; nothing was changed`);
    await this.webhooks.resealAll((row) => reseal(row.secret_enc, secretContext(row.id), keys, totals, unopenable(row.id)));
    return totals;
  }
}
