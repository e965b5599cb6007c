import { Processor, WorkerHost } from '@nestjs/bullmq';
import { Job } from 'bullmq';
import { WEBHOOK_QUEUE, WebhookJob } from '../common/queues';
import { env } from '../config/env';
import { workerOptions } from '../queue/worker-options';
import { WebhookSender } from './webhook-sender.service';

/** On its own queue and concurrency, so a dead receiver holds only these slots, never a delivery. */
@Processor(WEBHOOK_QUEUE, workerOptions(WEBHOOK_QUEUE, () => env().WEBHOOK_CONCURRENCY))
export class WebhookProcessor extends WorkerHost {
  constructor(private readonly sender: WebhookSender) {
    super();
  }

  async process(job: Job<WebhookJob>): Promise<void> {
    await this.sender.attempt(job.data.messageId);
  }
}
