import { Module } from '@nestjs/common';
import { AppsModule } from '../apps/apps.module';
import { WebhooksRepository } from './webhooks.repository';
import { WebhooksService } from './webhooks.service';

/** Webhooks (docs/api.md#webhooks): the endpoints, for the CLI and the worker. No queue consumer here. */
@Module({ imports: [AppsModule], providers: [WebhooksService, WebhooksRepository], exports: [WebhooksService, WebhooksRepository] })
export class WebhooksModule {}
