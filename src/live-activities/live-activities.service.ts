import { Injectable, Logger } from '@nestjs/common';
import { NotFoundError, StateConflictError, ValidationFailedError } from '../common/errors';
import { Clock } from '../common/time';
import { LiveActivityStatus } from '../common/vocabulary';
import { IdempotencyService, requestHash } from '../notifications/idempotency/idempotency.service';
import { LiveActivityJobs } from '../queue/jobs';
import { LiveActivityUpdateDto, RegisterLiveActivityDto } from './dto/live-activity.dto';
import { LiveActivitiesRepository, NewLiveActivityUpdate } from './live-activities.repository';
import {
  ActivityWithLastUpdate,
  LiveActivityResource,
  LiveActivityUpdateResource,
  toActivityWithLastUpdate,
  toLiveActivityResource,
  toLiveActivityUpdateResource,
} from './live-activity.resource';
import { isUuid } from '../common/uuid';
import { ENQUEUE_TIMEOUT_MS, storedUpdate, updateMessage, withTimeout } from './update-message';

const ACTIVE: LiveActivityStatus = 'active';
const ENDED: LiveActivityStatus = 'ended';

export const ENDED_MESSAGE = 'This live activity has ended.';

/** An accepted update's answer: JSON text, stored as is under an Idempotency-Key so a replay is byte-identical. */
export interface UpdateResult {
  status: number;
  body: string;
  replayed: boolean;
}

/** Live Activities (docs/api.md#live-activities): updates are numbered, stamped and queued for the worker. */
@Injectable()
export class LiveActivitiesService {
  private readonly logger = new Logger(LiveActivitiesService.name);

  constructor(
    private readonly activities: LiveActivitiesRepository,
    private readonly idempotency: IdempotencyService,
    private readonly jobs: LiveActivityJobs,
    private readonly clock: Clock,
  ) {}

  /** PUT: records (created = true) or refreshes the activity; its installation must be an iOS one of the app. */
  async register(appId: string, activityId: string, dto: RegisterLiveActivityDto): Promise<{ created: boolean; activity: LiveActivityResource }> {
    const installation = await this.activities.installation(appId, dto.installation_id);
    if (!installation) throw ValidationFailedError.of('installation_id', 'The installation_id must name an installation of this app.');
    if (installation.platform !== 'ios') {
      throw ValidationFailedError.of('installation_id', `The installation_id must name an iOS installation (it is ${installation.platform}).`);
    }
    const row = await this.activities.upsert(appId, activityId, installation.id, dto.attributes_type, dto.push_token.toLowerCase(), ACTIVE);
    return { created: row.created, activity: toLiveActivityResource(row) };
  }

  async find(appId: string, activityId: string): Promise<LiveActivityResource> {
    const row = await this.activities.find(appId, activityId);
    if (!row) throw new NotFoundError();
    return toLiveActivityResource(row);
  }

  /** The app's newest activities, newest first, each with its newest update (the operator dashboard's list). */
  async listWithLastUpdate(appId: string, limit: number): Promise<ActivityWithLastUpdate[]> {
    return (await this.activities.withLastUpdate(appId, limit)).map(toActivityWithLastUpdate);
  }

  /** DELETE: the activity ends (updates not yet sent are skipped); 404 when unknown. */
  async end(appId: string, activityId: string): Promise<void> {
    if (!(await this.activities.end(appId, activityId, ENDED))) throw new NotFoundError();
  }

  /** POST .../updates: numbered and stamped in one statement, then queued; 404 unknown, 409 ended. */
  async update(appId: string, activityId: string, dto: LiveActivityUpdateDto, rawBody: unknown, idempotencyKey?: string): Promise<UpdateResult> {
    const update = this.newUpdate(dto);
    if (idempotencyKey === undefined) {
      const row = await this.activities.accept(appId, activityId, update, ACTIVE);
      if (!row) return this.refuse(appId, activityId);
      await this.enqueue(row.id);
      return { status: 202, body: accepted(activityId, row), replayed: false };
    }

    // The activity is part of what identifies the request: the same key and body to another activity is a different request.
    const claim = await this.idempotency.claim(appId, idempotencyKey, requestHash({ activity_id: activityId, body: rawBody }));
    if (claim.kind === 'replay') return { status: claim.status, body: claim.body, replayed: true };
    let stored: Awaited<ReturnType<LiveActivitiesRepository['acceptWithResponse']>>;
    try {
      stored = await this.activities.acceptWithResponse(appId, activityId, update, ACTIVE, idempotencyKey, (row) => ({
        status: 202,
        body: accepted(activityId, row),
      }));
    } catch (error) {
      await this.idempotency.release(appId, idempotencyKey).catch(() => undefined);
      throw error;
    }
    if (!stored) {
      await this.idempotency.release(appId, idempotencyKey).catch(() => undefined);
      return this.refuse(appId, activityId);
    }
    await this.enqueue(stored.row.id);
    return { status: 202, body: stored.body, replayed: false };
  }

  async findUpdate(appId: string, activityId: string, updateId: string): Promise<LiveActivityUpdateResource> {
    if (!isUuid(updateId)) throw new NotFoundError();
    const row = await this.activities.findUpdate(appId, activityId, updateId);
    if (!row) throw new NotFoundError();
    return toLiveActivityUpdateResource(activityId, row);
  }

  /** The stored update; a payload that cannot fit APNs' limit is refused now, at `content_state`. */
  private newUpdate(dto: LiveActivityUpdateDto): NewLiveActivityUpdate {
    const acceptedAt = new Date(this.clock.now());
    updateMessage(dto, acceptedAt);
    return storedUpdate(dto, acceptedAt);
  }

  private async refuse(appId: string, activityId: string): Promise<never> {
    const row = await this.activities.find(appId, activityId);
    if (!row) throw new NotFoundError();
    throw new StateConflictError(ENDED_MESSAGE);
  }

  private async enqueue(updateId: string): Promise<void> {
    try {
      await withTimeout(this.jobs.add(updateId, 1), ENQUEUE_TIMEOUT_MS);
    } catch (error) {
      this.logger.error(`Live Activity update ${updateId} was stored but not queued: ${(error as Error).message}`);
    }
  }
}

function accepted(activityId: string, row: Parameters<typeof toLiveActivityUpdateResource>[1]): string {
  return JSON.stringify({ data: toLiveActivityUpdateResource(activityId, row) });
}
