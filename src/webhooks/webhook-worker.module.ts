import { BullModule } from '@nestjs/bullmq';
import { Module } from '@nestjs/common';
import { WEBHOOK_QUEUE } from '../common/queues';
import { WebhookJobs } from '../queue/jobs';
import { WebhookDispatcher } from './webhook-dispatcher';
import { WebhookProcessor } from './webhook.processor';
import { WebhookSender } from './webhook-sender.service';
import { WebhooksModule } from './webhooks.module';

/** Worker only: loading it starts the webhook queue's consumer and the outbox dispatcher. */
@Module({
  imports: [BullModule.registerQueue({ name: WEBHOOK_QUEUE }), WebhooksModule],
  providers: [WebhookJobs, WebhookSender, WebhookDispatcher, WebhookProcessor],
})
export class WebhookWorkerModule {}
