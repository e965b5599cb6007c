import { Processor, WorkerHost } from '@nestjs/bullmq';
import { Job } from 'bullmq';
import { LIVE_ACTIVITY_BROADCAST_JOB, LIVE_ACTIVITY_QUEUE, LiveActivityBroadcastJob, LiveActivityJob } from '../../common/queues';
import { env } from '../../config/env';
import { workerOptions } from '../../queue/worker-options';
import { LiveActivityBroadcasterService } from './live-activity-broadcaster.service';
import { LiveActivitySenderService } from './live-activity-sender.service';

/** Live Activity updates and channel broadcasts (docs/api.md#live-activities): one attempt of one per job. */
@Processor(LIVE_ACTIVITY_QUEUE, workerOptions(LIVE_ACTIVITY_QUEUE, () => env().WORKER_CONCURRENCY))
export class LiveActivityProcessor extends WorkerHost {
  constructor(
    private readonly sender: LiveActivitySenderService,
    private readonly broadcaster: LiveActivityBroadcasterService,
  ) {
    super();
  }

  async process(job: Job<LiveActivityJob | LiveActivityBroadcastJob>) {
    if (job.name === LIVE_ACTIVITY_BROADCAST_JOB) await this.broadcaster.attempt((job.data as LiveActivityBroadcastJob).broadcastId);
    else await this.sender.attempt((job.data as LiveActivityJob).updateId);
  }
}
