import { Injectable, Logger } from '@nestjs/common';
import { NotFoundError, StateConflictError } from '../common/errors';
import { Clock, iso } from '../common/time';
import { ChannelStorage } from '../common/vocabulary';
import { CredentialsService } from '../credentials/credentials.service';
import { isUuid } from '../common/uuid';
import { ApnsProvider, reasonOf } from '../delivery/providers/apns.provider';
import { IdempotencyService, requestHash } from '../notifications/idempotency/idempotency.service';
import { LiveActivityBroadcastJobs } from '../queue/jobs';
import { LiveActivityUpdateDto } from './dto/live-activity.dto';
import { LiveActivitiesRepository, LiveActivityChannelRow } from './live-activities.repository';
import { BroadcastRow, LiveActivityChannelsRepository } from './live-activity-channels.repository';
import { ENQUEUE_TIMEOUT_MS, storedUpdate, updateMessage, withTimeout } from './update-message';

/** The LiveActivityChannel resource. */
export function toChannelResource(row: LiveActivityChannelRow) {
  return { id: row.id, storage: row.storage as ChannelStorage, created_at: iso(row.created_at)! };
}
export type ChannelResource = ReturnType<typeof toChannelResource>;

/** A stored broadcast (docs/api.md#live-activity-channels): `pending` until APNs accepts it or it fails. */
export function toBroadcastResource(row: BroadcastRow) {
  return {
    id: row.id,
    channel_id: row.channel_id,
    event: row.event,
    status: row.status,
    reason: row.reason,
    attempts: row.attempts,
    created_at: iso(row.accepted_at)!,
  };
}
export type BroadcastResource = ReturnType<typeof toBroadcastResource>;

/** JSON text, stored as is under an Idempotency-Key so a replay is byte-identical. */
export interface BroadcastResult {
  body: string;
  replayed: boolean;
}

/** iOS 18 channels (docs/api.md#live-activity-channels), managed at APNs at once; broadcasts queued for the worker. */
@Injectable()
export class LiveActivityChannelsService {
  private readonly logger = new Logger(LiveActivityChannelsService.name);

  constructor(
    private readonly activities: LiveActivitiesRepository,
    private readonly broadcasts: LiveActivityChannelsRepository,
    private readonly idempotency: IdempotencyService,
    private readonly jobs: LiveActivityBroadcastJobs,
    private readonly credentials: CredentialsService,
    private readonly apns: ApnsProvider,
    private readonly clock: Clock,
  ) {}

  async create(appId: string, storage: ChannelStorage): Promise<ChannelResource> {
    const body = JSON.stringify({ 'message-storage-policy': storage === 'most_recent' ? 1 : 0, 'push-type': 'LiveActivity' });
    const answer = await this.apns.channelRequest(await this.credentials.forDelivery(appId), 'POST', 'channels', {}, body);
    const channelId = 'status' in answer && answer.status === 201 ? answer.headers['apns-channel-id'] : undefined;
    if (typeof channelId !== 'string' || channelId === '') throw refused('create the channel', answer);
    return toChannelResource(await this.activities.insertChannel(appId, channelId, storage));
  }

  async list(appId: string): Promise<ChannelResource[]> {
    return (await this.activities.channels(appId)).map(toChannelResource);
  }

  /** The app's channels, each with its newest broadcast (null before the first), as the operator dashboard lists them. */
  async listWithLastBroadcast(appId: string): Promise<(ChannelResource & { last_broadcast: BroadcastResource | null })[]> {
    const channels = await this.list(appId);
    const newest = await this.broadcasts.newestPerChannel(
      appId,
      channels.map((c) => c.id),
    );
    return channels.map((channel) => {
      const row = newest.find((b) => b.channel_id === channel.id);
      return { ...channel, last_broadcast: row ? toBroadcastResource(row) : null };
    });
  }

  /** Deleted at APNs, then here; one APNs no longer knows is deleted here all the same. */
  async remove(appId: string, id: string): Promise<void> {
    if (!(await this.activities.findChannel(appId, id))) throw new NotFoundError();
    const answer = await this.apns.channelRequest(await this.credentials.forDelivery(appId), 'DELETE', 'channels', { 'apns-channel-id': id });
    const gone =
      'status' in answer && (answer.status === 204 || answer.status === 200 || (answer.status === 404 && reasonOf(answer.body) === 'ChannelNotRegistered'));
    if (!gone) throw refused('delete the channel', answer);
    await this.activities.deleteChannel(appId, id);
  }

  /** Stored, stamped with the instant it was accepted, then queued; 404 for a channel the app does not have. */
  async broadcast(appId: string, id: string, dto: LiveActivityUpdateDto, rawBody: unknown, idempotencyKey?: string): Promise<BroadcastResult> {
    const acceptedAt = new Date(this.clock.now());
    updateMessage(dto, acceptedAt);
    const stored = storedUpdate(dto, acceptedAt);
    if (idempotencyKey === undefined) {
      const row = await this.broadcasts.accept(appId, id, stored);
      if (!row) throw new NotFoundError();
      await this.enqueue(row.id);
      return { body: answer(row), replayed: false };
    }

    // The channel is part of what identifies the request, as the activity is for updates.
    const claim = await this.idempotency.claim(appId, idempotencyKey, requestHash({ channel_id: id, body: rawBody }));
    if (claim.kind === 'replay') return { body: claim.body, replayed: true };
    let accepted: Awaited<ReturnType<LiveActivityChannelsRepository['acceptWithResponse']>>;
    try {
      accepted = await this.broadcasts.acceptWithResponse(appId, id, stored, idempotencyKey, (row) => ({ status: 202, body: answer(row) }));
    } catch (error) {
      await this.idempotency.release(appId, idempotencyKey).catch(() => undefined);
      throw error;
    }
    if (!accepted) {
      await this.idempotency.release(appId, idempotencyKey).catch(() => undefined);
      throw new NotFoundError();
    }
    await this.enqueue(accepted.row.id);
    return { body: accepted.body, replayed: false };
  }

  async findBroadcast(appId: string, channelId: string, id: string): Promise<BroadcastResource> {
    const row = isUuid(id) ? await this.broadcasts.find(appId, channelId, id) : undefined;
    if (!row) throw new NotFoundError();
    return toBroadcastResource(row);
  }

  private async enqueue(broadcastId: string): Promise<void> {
    try {
      await withTimeout(this.jobs.add(broadcastId, 1), ENQUEUE_TIMEOUT_MS);
    } catch (error) {
      this.logger.error(`Live Activity broadcast ${broadcastId} was stored but not queued: ${(error as Error).message}`);
    }
  }
}

const answer = (row: BroadcastRow) => JSON.stringify({ data: toBroadcastResource(row) });

function refused(what: string, answer: Awaited<ReturnType<ApnsProvider['channelRequest']>>): StateConflictError {
  const reason = 'reason' in answer ? answer.reason : 'failure' in answer ? answer.failure : (reasonOf(answer.body) ?? `HTTP ${answer.status}`);
  return new StateConflictError(`APNs did not ${what}: ${reason}.`);
}
