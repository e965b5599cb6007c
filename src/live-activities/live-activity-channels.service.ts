import { Injectable } from '@nestjs/common';
import { NotFoundError, StateConflictError } from '../common/errors';
import { Clock, iso } from '../common/time';
import { ChannelStorage } from '../common/vocabulary';
import { CredentialsService } from '../credentials/credentials.service';
import { ApnsProvider, reasonOf } from '../delivery/providers/apns.provider';
import { LiveActivityUpdateDto } from './dto/live-activity.dto';
import { LiveActivitiesRepository, LiveActivityChannelRow } from './live-activities.repository';
import { updateMessage } from './update-message';

/** The LiveActivityChannel resource. */
export function toChannelResource(row: LiveActivityChannelRow) {
  return { id: row.id, storage: row.storage as ChannelStorage, created_at: iso(row.created_at)! };
}
export type ChannelResource = ReturnType<typeof toChannelResource>;

/** What a broadcast became: APNs answers at once, so it is `accepted` or `failed` with APNs' reason. */
export interface BroadcastResource {
  channel_id: string;
  event: string;
  status: 'accepted' | 'failed';
  reason: string | null;
  created_at: string;
}

/**
 * iOS 18 broadcast channels (docs/api.md#live-activity-channels): created, listed and deleted at
 * APNs' channel management API, and updated through its broadcast endpoint, while the request
 * waits (one APNs request each). APNs refusing is a 409 carrying its reason.
 */
@Injectable()
export class LiveActivityChannelsService {
  constructor(
    private readonly activities: LiveActivitiesRepository,
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

  /** Deleted at APNs, then here; one APNs no longer knows is deleted here all the same. */
  async remove(appId: string, id: string): Promise<void> {
    if (!(await this.activities.findChannel(appId, id))) throw new NotFoundError();
    const answer = await this.apns.channelRequest(await this.credentials.forDelivery(appId), 'DELETE', 'channels', { 'apns-channel-id': id });
    const gone =
      'status' in answer && (answer.status === 204 || answer.status === 200 || (answer.status === 404 && reasonOf(answer.body) === 'ChannelNotRegistered'));
    if (!gone) throw refused('delete the channel', answer);
    await this.activities.deleteChannel(appId, id);
  }

  /** One broadcast to the channel's activities, stamped with the second it was accepted. */
  async broadcast(appId: string, id: string, dto: LiveActivityUpdateDto): Promise<BroadcastResource> {
    const acceptedAt = new Date(this.clock.now());
    const message = updateMessage(dto, acceptedAt);
    if (!(await this.activities.findChannel(appId, id))) throw new NotFoundError();
    const outcome = await this.apns.broadcast(await this.credentials.forDelivery(appId), id, message);
    const accepted = outcome.kind === 'accepted';
    return {
      channel_id: id,
      event: dto.event,
      status: accepted ? 'accepted' : 'failed',
      reason: accepted ? null : outcome.reason,
      created_at: acceptedAt.toISOString(),
    };
  }
}

function refused(what: string, answer: Awaited<ReturnType<ApnsProvider['channelRequest']>>): StateConflictError {
  const reason = 'reason' in answer ? answer.reason : 'failure' in answer ? answer.failure : (reasonOf(answer.body) ?? `HTTP ${answer.status}`);
  return new StateConflictError(`APNs did not ${what}: ${reason}.`);
}
