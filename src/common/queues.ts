import type { NotificationContentRow } from './notification';
/** Queue names, job names and payloads: where the API's `notifications` and the worker's `delivery` meet. */
export const FANOUT_QUEUE = 'fanout';
export const DELIVER_QUEUE = 'deliver';
export const MAINTENANCE_QUEUE = 'maintenance';
/** Webhook calls (docs/api.md#webhooks): their own queue and concurrency, so a slow receiver never holds up a send. */
export const WEBHOOK_QUEUE = 'webhook';
/** Live Activity updates (docs/api.md#live-activities): a job per update, sent as soon as it is accepted. */
export const LIVE_ACTIVITY_QUEUE = 'live-activity';
/** Small sends' batches (docs/api.md#small-sends) on their own slot, so a one-time code never waits behind a campaign. */
export const SMALL_SEND_QUEUE = 'deliver-small';
export const QUEUES = [FANOUT_QUEUE, DELIVER_QUEUE, SMALL_SEND_QUEUE, MAINTENANCE_QUEUE, WEBHOOK_QUEUE, LIVE_ACTIVITY_QUEUE] as const;

export interface FanoutJob {
  notificationId: string;
  /** Planned holds so far (send_at, a throttled send's pauses): each started the job once more. */
  pauses?: number;
  /** A throttled send's fan-out paused until then (epoch ms; docs/api.md#pacing): the sweeper leaves it be. */
  pausedUntil?: number;
  /** A small send the API fanned out and whose batches it queued (docs/api.md#small-sends): nothing is owed on the first run. */
  small?: true;
}

export interface DeliverJob {
  notificationId: string;
  batch: number;
  /** A throttled send's batch that was given its turn, at `turnAt` (ms), and waited for it (docs/api.md#pacing). */
  paced?: true;
  turnAt?: number;
  /** A small send's batch (docs/api.md#small-sends): the notification as the API stored it, so the worker need not read it. */
  carried?: CarriedContent;
}

/** The stored row's content columns as JSON (its start as ISO text): a small send's job carries them. */
export type CarriedContent = Omit<NotificationContentRow, 'processing_started_at'> & { processing_started_at: string };

export interface WebhookJob {
  messageId: string;
  attempt: number;
}

export interface LiveActivityJob {
  updateId: string;
  attempt: number;
}

export interface LiveActivityBroadcastJob {
  broadcastId: string;
  attempt: number;
}

export const FANOUT_JOB = 'fanout';
export const DELIVER_JOB = 'deliver';
export const WEBHOOK_JOB = 'webhook';
export const LIVE_ACTIVITY_JOB = 'live-activity';
export const LIVE_ACTIVITY_BROADCAST_JOB = 'live-activity-broadcast';

/** BullMQ ids must not contain ':' nor be all digits; a re-enqueue with the same id is a no-op. */
export const fanoutJobId = (notificationId: string) => `fanout-${notificationId}`;
export const deliverJobId = (notificationId: string, batch: number, suffix?: string) => `deliver-${notificationId}-${batch}${suffix ? `-${suffix}` : ''}`;
/** An A/B test's decision (docs/api.md#a-b-test-with-a-winner), a delayed job on the maintenance queue. */
export const AB_DECISION_JOB = 'ab-decision';
export const abDecisionJobId = (notificationId: string) => `ab-decision-${notificationId}`;
export const webhookJobId = (messageId: string, attempt: number) => `webhook-${messageId}-${attempt}`;
export const liveActivityJobId = (updateId: string, attempt: number) => `live-activity-${updateId}-${attempt}`;
export const liveActivityBroadcastJobId = (broadcastId: string, attempt: number) => `live-activity-broadcast-${broadcastId}-${attempt}`;
