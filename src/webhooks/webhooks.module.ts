import { Module } from '@nestjs/common';
import { AppsModule } from '../apps/apps.module';
import { WebhookHosts } from '../common/webhook-hosts';
import { EnvironmentVariables } from '../config/env';
import { WebhooksRepository } from './webhooks.repository';
import { WebhooksService } from './webhooks.service';

/** Webhooks (docs/api.md#webhooks): the endpoints, for the CLI and the worker. No queue consumer here. */
@Module({
  imports: [AppsModule],
  providers: [
    WebhooksService,
    WebhooksRepository,
    {
      provide: WebhookHosts,
      useFactory: (config: EnvironmentVariables) => WebhookHosts.fromSetting(config.WEBHOOK_ALLOWED_HOSTS),
      inject: [EnvironmentVariables],
    },
  ],
  exports: [WebhooksService, WebhooksRepository, WebhookHosts],
})
export class WebhooksModule {}
