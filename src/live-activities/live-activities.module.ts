import { BullModule } from '@nestjs/bullmq';
import { Module } from '@nestjs/common';
import { LIVE_ACTIVITY_QUEUE } from '../common/queues';
import { Clock } from '../common/time';
import { EnvironmentVariables } from '../config/env';
import { NotificationsModule } from '../notifications/notifications.module';
import { LiveActivityJobs } from '../queue/jobs';
import { producerConnection } from '../queue/queue.module';
import { LiveActivitiesController } from './live-activities.controller';
import { LiveActivitiesRepository } from './live-activities.repository';
import { LiveActivitiesService } from './live-activities.service';

/** The Live Activities API (docs/api.md#live-activities); the worker sends the updates (delivery/live-activity/). */
@Module({
  imports: [
    // Idempotency-Key handling is the sends' own (IdempotencyService and its table).
    NotificationsModule,
    // As for sends: the API's producer fails fast while Redis is away instead of buffering.
    BullModule.registerQueueAsync({
      name: LIVE_ACTIVITY_QUEUE,
      inject: [EnvironmentVariables],
      useFactory: (config: EnvironmentVariables) => ({ connection: producerConnection(config) }),
    }),
  ],
  controllers: [LiveActivitiesController],
  providers: [LiveActivitiesService, LiveActivitiesRepository, LiveActivityJobs, Clock],
})
export class LiveActivitiesModule {}
