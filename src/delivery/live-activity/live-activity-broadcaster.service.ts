import { Injectable } from '@nestjs/common';
import { EnvironmentVariables } from '../../config/env';
import { CredentialsService } from '../../credentials/credentials.service';
import { LiveActivityBroadcastJobs } from '../../queue/jobs';
import { retryDelayMs } from '../deliver/retry-policy';
import { ApnsProvider } from '../providers/apns.provider';
import { DeliveryOutcome } from '../providers/push-provider';
import { BroadcastOutcome, LiveActivityBroadcastsRepository, LockedBroadcastRow } from './live-activity-broadcasts.repository';
import { messageOf } from './live-activity-sender.service';

/** APNs' answer to one attempt: accepted, failed, or pending for another attempt (429, 5xx) until they run out. */
export function broadcastOutcome(
  broadcast: Pick<LockedBroadcastRow, 'attempts'>,
  answer: DeliveryOutcome,
  maxAttempts: number,
): BroadcastOutcome & { retry: boolean } {
  const attempts = broadcast.attempts + 1;
  if (answer.kind === 'accepted') return { status: 'accepted', reason: null, attempts, retry: false };
  const retry = answer.kind === 'retry' && attempts < maxAttempts;
  return { status: retry ? 'pending' : 'failed', reason: answer.reason, attempts, retry };
}

/** Sends channel broadcasts (docs/api.md#live-activity-channels), one attempt per job (the worker only). */
@Injectable()
export class LiveActivityBroadcasterService {
  constructor(
    private readonly broadcasts: LiveActivityBroadcastsRepository,
    private readonly credentials: CredentialsService,
    private readonly apns: ApnsProvider,
    private readonly jobs: LiveActivityBroadcastJobs,
    private readonly config: EnvironmentVariables,
  ) {}

  async attempt(broadcastId: string): Promise<void> {
    const retry = await this.broadcasts.locked(broadcastId, async (locked) => {
      const broadcast = await locked.read(broadcastId);
      if (!broadcast || broadcast.status !== 'pending') return null;
      const credentials = await this.credentials.forDelivery(broadcast.app_id);
      const answer = await this.apns.broadcast(credentials, broadcast.channel_id, messageOf(broadcast));
      const outcome = broadcastOutcome(broadcast, answer, this.config.DELIVERY_MAX_ATTEMPTS);
      await locked.record(broadcastId, outcome);
      if (!outcome.retry) return null;
      const retryAfter = answer.kind === 'retry' ? answer.retryAfterMs : undefined;
      return {
        attempt: outcome.attempts + 1,
        delayMs: retryDelayMs(outcome.attempts, this.config.DELIVERY_RETRY_BASE_MS, this.config.DELIVERY_RETRY_MAX_MS, retryAfter),
      };
    });
    // Queued once the attempt is committed, so the retry finds its attempts counted.
    if (retry) await this.jobs.add(broadcastId, retry.attempt, retry.delayMs);
  }
}
