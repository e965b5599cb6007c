import { Module } from '@nestjs/common';
import { ConfigModule } from './config/config.module';
import { DatabaseModule } from './database/database.module';
import { DeliveryModule } from './delivery/delivery.module';
import { LoggingModule } from './logging/logging.module';
import { MetricsModule } from './metrics/metrics.module';
import { QueueModule } from './queue/queue.module';
import { WebhookWorkerModule } from './webhooks/webhook-worker.module';

// Apart from app.module.ts: APP_MODE=worker loads only this file and what it imports, not the
// controllers, Swagger, Express or the dashboard (10 to 16 MB less RSS at rest; docs/architecture.md).

/** What every mode needs: configuration, logs, PostgreSQL, the queues and metrics. */
@Module({ imports: [ConfigModule, LoggingModule, DatabaseModule, QueueModule, MetricsModule] })
export class CoreModule {}

/** Queue processors, without an HTTP server. Processors are loaded only here. */
@Module({ imports: [CoreModule, DeliveryModule, WebhookWorkerModule] })
export class WorkerModule {}
