import { BullModule } from '@nestjs/bullmq';
import { Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { FANOUT_QUEUE } from '../common/queues';
import { producerConnection } from '../queue/queue.module';
import { HealthController } from './health.controller';
import { RedisHealthIndicator } from './redis.health';

@Module({
  imports: [
    TerminusModule.forRoot({ logger: false }),
    BullModule.registerQueueAsync({ name: FANOUT_QUEUE, useFactory: () => ({ connection: producerConnection() }) }),
  ],
  controllers: [HealthController],
  providers: [RedisHealthIndicator],
})
export class HealthModule {}
