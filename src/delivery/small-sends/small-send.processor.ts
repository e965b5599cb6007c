import { Processor, WorkerHost } from '@nestjs/bullmq';
import { Logger } from '@nestjs/common';
import { Job } from 'bullmq';
import { DeliverJob, SMALL_SEND_QUEUE } from '../../common/queues';
import { DeliveriesService } from '../deliver/deliveries.service';
import { FanOutService } from '../fan-out/fan-out.service';
import { workerOptions } from '../../queue/worker-options';

/**
 * The batches of small sends (docs/api.md#small-sends), on their own queue and slots: a one-time
 * code is sent while every delivery slot is busy with a campaign. Never throttled, so never paced.
 */
@Processor(SMALL_SEND_QUEUE, workerOptions(SMALL_SEND_QUEUE, () => 4))
export class SmallSendProcessor extends WorkerHost {
  private readonly logger = new Logger(SmallSendProcessor.name);

  constructor(
    private readonly deliveries: DeliveriesService,
    private readonly fanOut: FanOutService,
  ) {
    super();
  }

  async process(job: Job<DeliverJob>) {
    // A job that stalled (its worker died) takes back the rows that worker had in flight.
    // Its outcomes are written at once: the job holds one of the few slots until they are.
    const { notificationId, carried } = job.data;
    // Its notification came with it: not read again (jobs queued before it carried none).
    if (carried && 'app_id' in carried) this.deliveries.remember(notificationId, carried);
    const result = await this.deliveries.deliverBatch(notificationId, job.data.batch, job.stalledCounter > 0, false, true);
    // Then its fan-out is marked done and the send completes (no fan-out job follows a small send
    // with a batch), after the job has given its slot back: the next code does not wait for it.
    void this.fanOut
      .finishSmallSend(notificationId)
      .catch((error: Error) => this.logger.warn(`Small send ${notificationId} not finished now (${error.message}); the sweeper will finish it.`));
    return result;
  }
}
