import { Processor, WorkerHost } from '@nestjs/bullmq';
import { Logger } from '@nestjs/common';
import { Job } from 'bullmq';
import { DeliverJob, DUE_BATCHES_JOB, DueBatchesJob, SMALL_SEND_QUEUE } from '../../common/queues';
import { mapLimit } from '../../common/map-limit';
import { DeliveriesService } from '../deliver/deliveries.service';
import { FanOutService } from '../fan-out/fan-out.service';
import { workerOptions } from '../../queue/worker-options';

/** Batches of a due-sends group in flight at once per job (docs/api.md#due-sends). */
const DUE_BATCHES_IN_FLIGHT = 8;

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

  async process(job: Job<DeliverJob> | Job<DueBatchesJob>) {
    if (job.name === DUE_BATCHES_JOB) return this.deliverGroup(job as Job<DueBatchesJob>);
    return this.deliverOne(job as Job<DeliverJob>);
  }

  /**
   * A due-sends group's batches (docs/api.md#due-sends), `DUE_BATCHES_IN_FLIGHT` at a time: each one is a
   * few round trips and a provider call, so the slot waits on them in parallel. Their fan-out is done
   * already. A batch that fails is left to the sweeper (overdue batches), after the others are sent.
   */
  private async deliverGroup(job: Job<DueBatchesJob>) {
    const reclaim = job.stalledCounter > 0;
    const results = await mapLimit(job.data.batches, DUE_BATCHES_IN_FLIGHT, ({ notificationId, batch }) =>
      this.deliveries.deliverBatch(notificationId, batch, reclaim, false, true).then(
        (result) => result.sent,
        (error: Error) => {
          this.logger.warn(`Due batch ${notificationId}/${batch} not sent now (${error.message}); the sweeper will queue it.`);
          return 0;
        },
      ),
    );
    return { sent: results.reduce((sum, sent) => sum + sent, 0) };
  }

  private async deliverOne(job: Job<DeliverJob>) {
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
