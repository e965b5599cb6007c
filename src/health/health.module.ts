import { BullModule } from '@nestjs/bullmq';
import { Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { FANOUT_QUEUE } from '../common/queues';
import { EnvironmentVariables } from '../config/env';
import { producerConnection } from '../queue/queue.module';
import { HealthController } from './health.controller';
import { QueueHealthIndicator } from './queue.health';

@Module({
  imports: [
    TerminusModule.forRoot({ logger: false }),
    BullModule.registerQueueAsync({
      name: FANOUT_QUEUE,
      inject: [EnvironmentVariables],
      useFactory: (config: EnvironmentVariables) => ({ connection: producerConnection(config) }),
    }),
  ],
  controllers: [HealthController],
  providers: [QueueHealthIndicator],
})
export class HealthModule {}
