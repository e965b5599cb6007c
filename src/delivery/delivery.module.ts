import { BullModule } from '@nestjs/bullmq';
import { Module } from '@nestjs/common';
import { DELIVER_QUEUE, FANOUT_QUEUE, LIVE_ACTIVITY_QUEUE, MAINTENANCE_QUEUE, SMALL_SEND_QUEUE } from '../common/queues';
import { Clock } from '../common/time';
import { CredentialsModule } from '../credentials/credentials.module';
import { AbDecisionJobs, DeliverJobs, FanoutJobs, LiveActivityBroadcastJobs, LiveActivityJobs, SmallSendJobs } from '../queue/jobs';
import { DueSendsRepository } from './due-sends/due-sends.repository';
import { DueSendsService } from './due-sends/due-sends.service';
import { DueSendsDrain } from './fan-out/due-sends-drain';
import { AbTestsRepository } from './ab-tests/ab-tests.repository';
import { AbTestsService } from './ab-tests/ab-tests.service';
import { PaceLimiter } from '../queue/pace-limiter';
import { PaceRepository } from '../queue/pace.repository';
import { CompletionReportRepository } from './completion-report.repository';
import { CompletionReportService } from './completion-report.service';
import { DeliverProcessor } from './deliver/deliver.processor';
import { SmallSendProcessor } from './small-sends/small-send.processor';
import { DeliveriesRepository } from './deliver/deliveries.repository';
import { DeliveriesService } from './deliver/deliveries.service';
import { FanOutProcessor } from './fan-out/fan-out.processor';
import { FanOutRepository } from './fan-out/fan-out.repository';
import { FanOutService } from './fan-out/fan-out.service';
import { FairSharesRepository } from './fair-shares/fair-shares.repository';
import { FairSharesService } from './fair-shares/fair-shares.service';
import { FanoutSharesRepository } from './fair-shares/fanout-shares.repository';
import { FanoutSharesService } from './fair-shares/fanout-shares.service';
import { LiveActivityUpdatesRepository } from './live-activity/live-activity-updates.repository';
import { LiveActivityBroadcastsRepository } from './live-activity/live-activity-broadcasts.repository';
import { LiveActivityBroadcasterService } from './live-activity/live-activity-broadcaster.service';
import { LiveActivitySenderService } from './live-activity/live-activity-sender.service';
import { LiveActivityProcessor } from './live-activity/live-activity.processor';
import { OutcomeRecorder } from './deliver/outcome-recorder';
import { ProvidersModule } from './providers/providers.module';
import { InstallationDaysRepository } from './installation-days/installation-days.repository';
import { InstallationDaysService } from './installation-days/installation-days.service';
import { RetentionRepository } from './retention/retention.repository';
import { RetentionService } from './retention/retention.service';
import { SweeperProcessor } from './sweeper/sweeper.processor';
import { SweeperRepository } from './sweeper/sweeper.repository';
import { StoreOutage } from './deliver/store-outage';
import { SweeperService } from './sweeper/sweeper.service';

/** Worker only: loading it starts the queue consumers. */
@Module({
  imports: [
    BullModule.registerQueue(
      { name: FANOUT_QUEUE },
      { name: DELIVER_QUEUE },
      { name: SMALL_SEND_QUEUE },
      { name: MAINTENANCE_QUEUE },
      { name: LIVE_ACTIVITY_QUEUE },
    ),
    CredentialsModule,
    ProvidersModule,
  ],
  providers: [
    Clock,
    FanOutService,
    FairSharesService,
    FairSharesRepository,
    FanoutSharesService,
    FanoutSharesRepository,
    DeliveriesService,
    OutcomeRecorder,
    StoreOutage,
    SweeperService,
    RetentionService,
    InstallationDaysService,
    InstallationDaysRepository,
    CompletionReportService,
    CompletionReportRepository,
    FanOutRepository,
    DeliveriesRepository,
    SweeperRepository,
    RetentionRepository,
    FanoutJobs,
    DeliverJobs,
    SmallSendJobs,
    DueSendsService,
    { provide: DueSendsDrain, useExisting: DueSendsService },
    DueSendsRepository,
    AbDecisionJobs,
    AbTestsService,
    AbTestsRepository,
    PaceLimiter,
    PaceRepository,
    FanOutProcessor,
    DeliverProcessor,
    SmallSendProcessor,
    SweeperProcessor,
    LiveActivitySenderService,
    LiveActivityUpdatesRepository,
    LiveActivityJobs,
    LiveActivityBroadcasterService,
    LiveActivityBroadcastsRepository,
    LiveActivityBroadcastJobs,
    LiveActivityProcessor,
  ],
})
export class DeliveryModule {}
