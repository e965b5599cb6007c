import { Processor, WorkerHost } from '@nestjs/bullmq';
import { DelayedError, Job } from 'bullmq';
import { DELIVER_QUEUE, DeliverJob } from '../../common/queues';
import { env } from '../../config/env';
import { FairSharesService } from '../fair-shares/fair-shares.service';
import { DeliveriesService } from './deliveries.service';
import { workerOptions } from '../../queue/worker-options';

@Processor(DELIVER_QUEUE, workerOptions(DELIVER_QUEUE, () => env().WORKER_CONCURRENCY))
export class DeliverProcessor extends WorkerHost {
  constructor(
    private readonly deliveries: DeliveriesService,
    private readonly fairShares: FairSharesService,
  ) {
    super();
  }

  async process(job: Job<DeliverJob>, token?: string) {
    // A job that stalled (its worker died) takes back the rows that worker had in flight.
    const paced = job.data.paced === true && { turnAt: job.data.turnAt };
    const result = await this.deliveries.deliverBatch(job.data.notificationId, job.data.batch, job.stalledCounter > 0, paced);
    if (result.waitMs) {
      // Before its turn in a throttled send (docs/api.md#pacing): the same job waits for it in Redis, not in this worker.
      await job.updateData({ ...job.data, paced: true, turnAt: result.turnAt });
      await job.moveToDelayed(Date.now() + result.waitMs, token);
      throw new DelayedError();
    }
    // Its place in its app's lane goes to the lane's next batch, behind the other apps' (docs/api.md#fair-sharing).
    await this.fairShares.finished(job.data.notificationId, job.data.batch);
    return result;
  }
}
