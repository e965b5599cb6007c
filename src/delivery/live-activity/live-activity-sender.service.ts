import { Injectable } from '@nestjs/common';
import { LiveActivitySkipReason, LiveActivityStatus } from '../../common/vocabulary';
import { EnvironmentVariables } from '../../config/env';
import { CredentialsService } from '../../credentials/credentials.service';
import { LiveActivityJobs } from '../../queue/jobs';
import { retryDelayMs } from '../deliver/retry-policy';
import { ApnsProvider } from '../providers/apns.provider';
import { LiveActivityMessage, unixSeconds } from '../providers/live-activity-payload';
import { DeliveryOutcome } from '../providers/push-provider';
import { LiveActivityUpdatesRepository, LockedUpdateRow, UpdateOutcome } from './live-activity-updates.repository';

const ENDED: LiveActivityStatus = 'ended';

/** The APNs message of a stored update: `aps.timestamp` is the second the API accepted it. */
export function messageOf(update: Pick<LockedUpdateRow, 'event' | 'content' | 'priority' | 'accepted_at'>): LiveActivityMessage {
  const { content } = update;
  return {
    event: update.event,
    contentState: content.content_state,
    timestamp: unixSeconds(update.accepted_at),
    priority: update.priority,
    alert: content.alert,
    staleDate: content.stale_date ? unixSeconds(content.stale_date) : null,
    dismissalDate: content.dismissal_date ? unixSeconds(content.dismissal_date) : null,
    relevanceScore: content.relevance_score,
  };
}

/**
 * What an attempt decides before sending (docs/api.md#live-activity-updates): nothing when the
 * update is no longer pending (a repeated job), `Superseded` when APNs already accepted a newer
 * update of the activity, `ActivityEnded` when the activity ended; else it is sent.
 */
export function beforeSending(update: LockedUpdateRow): 'done' | LiveActivitySkipReason | 'send' {
  if (update.status !== 'pending') return 'done';
  if (BigInt(update.seq) < BigInt(update.sent_seq)) return LiveActivitySkipReason.Superseded;
  if (update.activity_status === ENDED) return LiveActivitySkipReason.ActivityEnded;
  return 'send';
}

/**
 * What APNs' answer makes of the update and its activity: accepted moves the activity's sent
 * update up (and an `end` ends it); a refused token fails the update and ends the activity with
 * APNs' reason; a retryable answer waits for another attempt until they run out.
 */
export function outcomeAfter(update: LockedUpdateRow, answer: DeliveryOutcome, maxAttempts: number): UpdateOutcome & { retry: boolean } {
  const attempts = update.attempts + 1;
  switch (answer.kind) {
    case 'accepted':
      return {
        status: 'accepted',
        reason: null,
        attempts,
        sent: true,
        endActivity: update.event === 'end' ? { status: ENDED, reason: null } : null,
        retry: false,
      };
    case 'invalid':
      return { status: 'failed', reason: answer.reason, attempts, sent: false, endActivity: { status: ENDED, reason: answer.reason }, retry: false };
    case 'retry':
      if (attempts >= maxAttempts) return { status: 'failed', reason: answer.reason, attempts, sent: false, endActivity: null, retry: false };
      return { status: 'pending', reason: answer.reason, attempts, sent: false, endActivity: null, retry: true };
    case 'failed':
      return { status: 'failed', reason: answer.reason, attempts, sent: false, endActivity: null, retry: false };
  }
}

/** Sends Live Activity updates, one attempt per job, in their activity's order (the worker only). */
@Injectable()
export class LiveActivitySenderService {
  constructor(
    private readonly updates: LiveActivityUpdatesRepository,
    private readonly credentials: CredentialsService,
    private readonly apns: ApnsProvider,
    private readonly jobs: LiveActivityJobs,
    private readonly config: EnvironmentVariables,
  ) {}

  /** One attempt of one update; queues the next attempt when APNs asks to retry. */
  async attempt(updateId: string): Promise<void> {
    const retry = await this.updates.locked(updateId, async (locked) => {
      const update = await locked.read(updateId);
      if (!update) return null;
      const decision = beforeSending(update);
      if (decision === 'done') return null;
      if (decision !== 'send') {
        await locked.record(updateId, { status: 'skipped', reason: decision, attempts: update.attempts, sent: false, endActivity: null });
        return null;
      }
      // Sent while the activity's lock is held: the next update of the activity waits for this answer.
      const credentials = await this.credentials.forDelivery(update.app_id);
      const answer = await this.apns.sendLiveActivity(credentials, update.push_token, messageOf(update));
      const outcome = outcomeAfter(update, answer, this.config.DELIVERY_MAX_ATTEMPTS);
      await locked.record(updateId, outcome);
      if (!outcome.retry) return null;
      const retryAfter = answer.kind === 'retry' ? answer.retryAfterMs : undefined;
      return {
        attempt: outcome.attempts + 1,
        delayMs: retryDelayMs(outcome.attempts, this.config.DELIVERY_RETRY_BASE_MS, this.config.DELIVERY_RETRY_MAX_MS, retryAfter),
      };
    });
    // Queued once the attempt is recorded, so the retry finds the update pending with its attempts counted.
    if (retry) await this.jobs.add(updateId, retry.attempt, retry.delayMs);
  }
}
