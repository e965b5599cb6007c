import { Processor, WorkerHost } from '@nestjs/bullmq';
import { Job } from 'bullmq';
import { DeliverJob, SMALL_SEND_QUEUE } from '../../common/queues';
import { DeliveriesService } from './deliveries.service';
import { workerOptions } from '../../queue/worker-options';

/**
 * The batches of small sends (docs/api.md#small-sends), on their own queue and slots: a one-time
 * code is sent while every delivery slot is busy with a campaign. Never throttled, so never paced.
 */
@Processor(SMALL_SEND_QUEUE, workerOptions(SMALL_SEND_QUEUE, () => 4))
export class SmallSendProcessor extends WorkerHost {
  constructor(private readonly deliveries: DeliveriesService) {
    super();
  }

  process(job: Job<DeliverJob>) {
    // A job that stalled (its worker died) takes back the rows that worker had in flight.
    // Its outcomes are written at once: the job holds one of the few slots until they are.
    return this.deliveries.deliverBatch(job.data.notificationId, job.data.batch, job.stalledCounter > 0, false, true);
  }
}
