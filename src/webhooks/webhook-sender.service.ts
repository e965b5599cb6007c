import { Injectable, Logger } from '@nestjs/common';
import { Agent } from 'undici';
import { PRIVATE_ADDRESS_CODE } from '../common/web-push-hosts';
import { toInboxMessageResource } from '../inbox/inbox-message.resource';
import { WebhookEventType } from '../common/webhook-events';
import { WebhookHosts } from '../common/webhook-hosts';
import { EnvironmentVariables } from '../config/env';
import { appKeys, openWithAny } from '../credentials/secret-box';
import { toInstallationResource } from '../installations/installation.resource';
import { MetricsService } from '../metrics/metrics.service';
import { toNotificationResource } from '../notifications/notification.resource';
import { WebhookJobs } from '../queue/jobs';
import { isDelivered, retryDelayMs, signedHeaders, WEBHOOK_TIMEOUT_MS } from './webhook-rules';
import { secretContext } from './webhooks.service';
import { MessageAttempt, WebhooksRepository } from './webhooks.repository';

/** Held from the dispatcher for the call's timeout and a margin: a worker killed mid-call leaves it due after this. */
export const ATTEMPT_LEASE_SECONDS = WEBHOOK_TIMEOUT_MS / 1000 + 5;

export const ENDPOINT_NOT_ALLOWED = 'EndpointNotAllowed';
export const PRIVATE_ADDRESS = 'PrivateAddress';

/** One message per call (docs/api.md#webhooks), the same bytes and `webhook-id` on every attempt. */
@Injectable()
export class WebhookSender {
  private readonly logger = new Logger(WebhookSender.name);

  constructor(
    private readonly messages: WebhooksRepository,
    private readonly jobs: WebhookJobs,
    private readonly metrics: MetricsService,
    private readonly config: EnvironmentVariables,
    private readonly hosts: WebhookHosts,
  ) {
    // To the address checked (DNS rebinding).
    this.dispatcher = new Agent({ connect: { lookup: hosts.lookup } });
  }

  private readonly dispatcher: Agent;

  async attempt(messageId: string): Promise<void> {
    const message = await this.messages.startAttempt(messageId, ATTEMPT_LEASE_SECONDS);
    if (!message) return; // delivered, given up, or its webhook deleted
    const type = message.type as WebhookEventType;
    const error = await this.call(message).catch((failure: Error) => failure.message);
    if (error === undefined) {
      await this.messages.delivered(message.id);
      this.metrics.recordWebhookCall(type, 'delivered');
      return;
    }
    if (message.attempts >= this.config.WEBHOOK_MAX_ATTEMPTS) {
      await this.messages.failed(message.id, error);
      this.metrics.recordWebhookCall(type, 'failed');
      this.logger.warn(`Webhook ${message.webhook_id}: gave up ${type} message ${message.id} after ${message.attempts} attempts (${error})`);
      return;
    }
    const delayMs = retryDelayMs(message.attempts, this.config.WEBHOOK_FIRST_RETRY_MS);
    await this.messages.retryLater(message.id, error, delayMs + ATTEMPT_LEASE_SECONDS * 1000);
    await this.jobs.add([{ messageId: message.id, attempt: message.attempts + 1, delayMs }]);
    this.metrics.recordWebhookCall(type, 'retried');
  }

  private async call(message: MessageAttempt): Promise<string | undefined> {
    const body = message.body ?? (await this.makeBody(message));
    const secret = openWithAny(message.secret_enc, secretContext(message.webhook_id), appKeys(this.config)).plaintext;
    // Again: WEBHOOK_ALLOWED_HOSTS may have changed.
    if (!this.hosts.permits(new URL(message.url))) return ENDPOINT_NOT_ALLOWED;
    try {
      const response = await fetch(message.url, {
        method: 'POST',
        headers: signedHeaders(secret, message.id, body, new Date()),
        body,
        redirect: 'manual',
        signal: AbortSignal.timeout(WEBHOOK_TIMEOUT_MS),
        dispatcher: this.dispatcher,
      });
      // Not read, so a slow body does not hold the call.
      await response.body?.cancel().catch(() => undefined);
      return isDelivered(response.status) ? undefined : `HTTP ${response.status}`;
    } catch (failure) {
      const { name, message: text, cause } = failure as Error & { cause?: { code?: string } };
      if (name === 'TimeoutError') return `no answer within ${WEBHOOK_TIMEOUT_MS / 1000} s`;
      if (cause?.code === PRIVATE_ADDRESS_CODE) return PRIVATE_ADDRESS;
      return cause?.code ?? text;
    }
  }

  /** The public resource, never a token, a subscription or a secret. */
  private async makeBody(message: MessageAttempt): Promise<string> {
    const data = await this.resource(message);
    if (data === undefined) throw new Error(`its ${message.type.split('.')[0]} ${message.subject_id} no longer exists`);
    const body = JSON.stringify({ type: message.type, timestamp: message.created_at.toISOString(), data });
    return this.messages.keepBody(message.id, body);
  }

  private async resource(message: MessageAttempt): Promise<object | undefined> {
    if (message.type === 'inbox.read') {
      const row = await this.messages.inboxMessage(message.subject_id);
      return row && toInboxMessageResource(row);
    }
    if (message.type === 'installation.invalidated') {
      const row = await this.messages.installation(message.subject_id);
      return row && toInstallationResource(row);
    }
    const row = await this.messages.notification(message.subject_id);
    return row && toNotificationResource(row);
  }
}
