import { BullModule } from '@nestjs/bullmq';
import { Module } from '@nestjs/common';
import { FANOUT_QUEUE, SMALL_SEND_QUEUE } from '../common/queues';
import { SmallSendsModule } from '../delivery/small-sends/small-sends.module';
import { Clock } from '../common/time';
import { AudiencesController } from './audiences/audiences.controller';
import { AudiencesRepository } from './audiences/audiences.repository';
import { AudiencesService } from './audiences/audiences.service';
import { AudienceSlots } from './audiences/audience-slots';
import { EnvironmentVariables } from '../config/env';
import { CredentialsModule } from '../credentials/credentials.module';
import { FanoutJobs, SmallSendJobs } from '../queue/jobs';
import { FanoutSharesRepository } from '../delivery/fair-shares/fanout-shares.repository';
import { FanoutSharesService } from '../delivery/fair-shares/fanout-shares.service';
import { producerConnection } from '../queue/queue.module';
import { DeliveryTraceRepository } from './trace/delivery-trace.repository';
import { DeliveryTraceService } from './trace/delivery-trace.service';
import { IdempotencyModule } from './idempotency/idempotency.module';
import { NotificationEventsService } from './events/notification-events.service';
import { NotificationsController } from './notifications.controller';
import { NotificationsRepository } from './notifications.repository';
import { NotificationsService } from './notifications.service';
import { TopicsModule } from '../topics/topics.module';
import { PreviewController } from './preview/preview.controller';
import { PreviewRepository } from './preview/preview.repository';
import { PreviewService } from './preview/preview.service';
import { TemplatesModule } from '../templates/templates.module';

@Module({
  imports: [
    IdempotencyModule,
    // Which platforms an app can reach decides which payload limits apply to its sends.
    CredentialsModule,
    // Small sends are fanned out here, with the fan-out's own statement (docs/api.md#small-sends).
    SmallSendsModule,
    // A send's or count's topic must exist (docs/api.md#topics-and-preferences).
    TopicsModule,
    // A send from a template takes its texts (docs/api.md#sending-with-a-template).
    TemplatesModule,
    // The API's producer fails fast while Redis is away instead of buffering: the sweeper catches up.
    BullModule.registerQueueAsync(
      ...[FANOUT_QUEUE, SMALL_SEND_QUEUE].map((name) => ({
        name,
        inject: [EnvironmentVariables],
        useFactory: (config: EnvironmentVariables) => ({ connection: producerConnection(config) }),
      })),
    ),
  ],
  controllers: [PreviewController, NotificationsController, AudiencesController],
  providers: [
    NotificationsService,
    NotificationEventsService,
    NotificationsRepository,
    DeliveryTraceService,
    DeliveryTraceRepository,
    FanoutJobs,
    // A send due now takes its app's place among the fan-outs (docs/api.md#fair-sharing).
    FanoutSharesService,
    FanoutSharesRepository,
    SmallSendJobs,
    AudiencesService,
    AudiencesRepository,
    AudienceSlots,
    PreviewService,
    PreviewRepository,
    Clock,
  ],
  // The operator dashboard (admin/) sends, reads, cancels and traces through the same services as the API.
  // Live Activity updates take an Idempotency-Key as sends do (live-activities/).
  exports: [NotificationsService, DeliveryTraceService, AudiencesService, AudienceSlots, PreviewService, IdempotencyModule],
})
export class NotificationsModule {}
