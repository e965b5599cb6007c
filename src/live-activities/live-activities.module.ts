import { BullModule } from '@nestjs/bullmq';
import { Module } from '@nestjs/common';
import { LIVE_ACTIVITY_QUEUE } from '../common/queues';
import { Clock } from '../common/time';
import { EnvironmentVariables } from '../config/env';
import { CredentialsModule } from '../credentials/credentials.module';
import { ProvidersModule } from '../delivery/providers/providers.module';
import { IdempotencyModule } from '../notifications/idempotency/idempotency.module';
import { LiveActivityBroadcastJobs, LiveActivityJobs } from '../queue/jobs';
import { producerConnection } from '../queue/queue.module';
import { LiveActivitiesController } from './live-activities.controller';
import { LiveActivitiesRepository } from './live-activities.repository';
import { LiveActivitiesService } from './live-activities.service';
import { LiveActivityChannelsController } from './live-activity-channels.controller';
import { LiveActivityChannelsRepository } from './live-activity-channels.repository';
import { LiveActivityChannelsService } from './live-activity-channels.service';

/** The Live Activities API (docs/api.md#live-activities); the worker sends the updates (delivery/live-activity/). */
@Module({
  imports: [
    IdempotencyModule,
    // Idempotency-Key as for sends; channels are managed at APNs while the request waits (credentials, APNs client).
    CredentialsModule,
    ProvidersModule,
    // As for sends: the API's producer fails fast while Redis is away instead of buffering.
    BullModule.registerQueueAsync({
      name: LIVE_ACTIVITY_QUEUE,
      inject: [EnvironmentVariables],
      useFactory: (config: EnvironmentVariables) => ({ connection: producerConnection(config) }),
    }),
  ],
  controllers: [LiveActivitiesController, LiveActivityChannelsController],
  providers: [
    LiveActivitiesService,
    LiveActivityChannelsService,
    LiveActivitiesRepository,
    LiveActivityChannelsRepository,
    LiveActivityJobs,
    LiveActivityBroadcastJobs,
    Clock,
  ],
  // The operator dashboard lists activities and channels through the services (docs/architecture.md, "The admin room").
  exports: [LiveActivitiesService, LiveActivityChannelsService],
})
export class LiveActivitiesModule {}
