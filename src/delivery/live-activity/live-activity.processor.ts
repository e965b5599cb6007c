import { Processor, WorkerHost } from '@nestjs/bullmq';
import { Job } from 'bullmq';
import { LIVE_ACTIVITY_QUEUE, LiveActivityJob } from '../../common/queues';
import { env } from '../../config/env';
import { workerOptions } from '../../queue/worker-options';
import { LiveActivitySenderService } from './live-activity-sender.service';

/** Live Activity updates (docs/api.md#live-activity-updates): one attempt of one update per job. */
@Processor(LIVE_ACTIVITY_QUEUE, workerOptions(LIVE_ACTIVITY_QUEUE, () => env().WORKER_CONCURRENCY))
export class LiveActivityProcessor extends WorkerHost {
  constructor(private readonly sender: LiveActivitySenderService) {
    super();
  }

  async process(job: Job<LiveActivityJob>) {
    await this.sender.attempt(job.data.updateId);
  }
}
