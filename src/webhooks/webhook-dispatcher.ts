import { Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { WebhookJobs } from '../queue/jobs';
import { ATTEMPT_LEASE_SECONDS } from './webhook-sender.service';
import { WebhooksRepository } from './webhooks.repository';

export const DISPATCH_EVERY_MS = 1000;
const DISPATCH_LIMIT = 500;

/** Queues due outbox messages (docs/api.md#webhooks), each leased ATTEMPT_LEASE_SECONDS ahead, so a lost job is queued again. */
@Injectable()
export class WebhookDispatcher implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(WebhookDispatcher.name);
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private failing = false;

  constructor(
    private readonly messages: WebhooksRepository,
    private readonly jobs: WebhookJobs,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => void this.tick(), DISPATCH_EVERY_MS);
    this.timer.unref();
  }

  async onModuleDestroy(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  async dispatch(): Promise<number> {
    let queued = 0;
    for (;;) {
      const due = await this.messages.dispatchDue(DISPATCH_LIMIT, ATTEMPT_LEASE_SECONDS);
      await this.jobs.requeue(due.map((message) => ({ messageId: message.id, attempt: message.attempts + 1 })));
      queued += due.length;
      if (due.length < DISPATCH_LIMIT) return queued;
    }
  }

  private async tick(): Promise<void> {
    if (this.running) return;
    this.running = this.dispatch()
      .then(() => {
        if (this.failing) this.logger.log('Webhook messages are queued again');
        this.failing = false;
      })
      .catch((error: Error) => {
        if (!this.failing) this.logger.warn(`Webhook messages not queued now (${error.message}); trying again every second`);
        this.failing = true;
      })
      .finally(() => (this.running = undefined));
    await this.running;
  }
}
