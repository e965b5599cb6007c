import { Global, Module } from '@nestjs/common';
import { QueueInspectorModule } from '../queue/queue-inspector.module';
import { MetricsServer } from './metrics.server';
import { MetricsService } from './metrics.service';
import { QueueDepthSampler } from './queue-depth.sampler';

/**
 * Metrics for every mode (it is part of CoreModule): the registry domain code records into,
 * and the METRICS_PORT listener that exposes it.
 */
@Global()
@Module({
  imports: [QueueInspectorModule],
  providers: [MetricsService, QueueDepthSampler, MetricsServer],
  exports: [MetricsService],
})
export class MetricsModule {}
