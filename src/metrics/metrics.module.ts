import { Global, Module } from '@nestjs/common';
import { QueueInspectorModule } from '../queue/queue-inspector.module';
import { DatabasePingRepository } from './database-ping.repository';
import { DatabaseSampler } from './database.sampler';
import { LaneDepthRepository } from './lane-depth.repository';
import { LaneDepthSampler } from './lane-depth.sampler';
import { MetricsServer } from './metrics.server';
import { MetricsService } from './metrics.service';
import { QueueDepthSampler } from './queue-depth.sampler';

@Global()
@Module({
  imports: [QueueInspectorModule],
  providers: [MetricsService, QueueDepthSampler, DatabasePingRepository, DatabaseSampler, LaneDepthRepository, LaneDepthSampler, MetricsServer],
  exports: [MetricsService],
})
export class MetricsModule {}
