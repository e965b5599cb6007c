import { Inject, Injectable } from '@nestjs/common';
import { NotificationOptions } from '../../common/notification-options';
import { RecipientKind } from '../../common/vocabulary';
import { EnvironmentVariables } from '../../config/env';
import { CredentialsService } from '../../credentials/credentials.service';
import { SILENTLESS } from '../providers/payloads';
import { configuredPlatforms, PUSH_PROVIDERS, PushProvider } from '../providers/push-provider';
import type { CarriedContent } from '../../common/queues';
import { ContentRow, toSend } from '../deliver/deliveries.repository';
import { ChunkParams, ChunkResult, FanOutRepository, NotificationInsert, SmallSendRecipients, StoreSmallSend, wantedPlatforms } from './fan-out.repository';

/** How a small send is stored (NotificationsRepository.insert takes it). */
export type { NotificationInsert, StoreSmallSend, SmallSendRecipients };

/** One chunk takes every id of a small send (SMALL_SEND_MAX_RECIPIENTS is at most this). */
const SMALL_SEND_CHUNK = 100;

/** What decides whether a send is small. */
export interface SendShape {
  recipientKind: RecipientKind;
  userIds: string[];
  installationIds: string[] | null;
  sendAt: Date | null;
  options: NotificationOptions | null;
}

/**
 * A small send (docs/api.md#small-sends): transactional, due now, to at most `max` user or
 * installation ids. Anything paced or timed (a throttle, a local time, a marketing send's caps
 * and quiet hours, a send_at still ahead) goes through the fan-out job.
 */
export function isSmallSend(send: SendShape, max: number, now: number): boolean {
  const ids = send.recipientKind === 'user_ids' ? send.userIds : send.recipientKind === 'installation_ids' ? send.installationIds : null;
  const options = send.options;
  return (
    ids !== null &&
    ids.length > 0 &&
    ids.length <= max &&
    (send.sendAt === null || send.sendAt.getTime() <= now) &&
    options?.category !== 'marketing' &&
    options?.local_time === undefined &&
    options?.throttle_per_minute === undefined
  );
}

/** The ids of a send isSmallSend accepted. */
export function smallSendRecipients(send: Pick<SendShape, 'recipientKind' | 'userIds' | 'installationIds'>): SmallSendRecipients {
  return send.recipientKind === 'user_ids' ? { kind: 'user_ids', ids: send.userIds } : { kind: 'installation_ids', ids: send.installationIds ?? [] };
}

/** A small send's notification for its batch's job (DeliverJob.carried), from the row the API stored. */
export function carriedContent(row: ContentRow): CarriedContent {
  const sent = toSend(row);
  return { appId: sent.appId, startedAt: sent.startedAt!.toISOString(), content: sent.content };
}

/** A small send's fan-out as the API runs it: in the statement that stores it (`store`), then what it wrote. */
export interface SmallSendPlan {
  /** The notification's id. */
  id: string;
  store: StoreSmallSend;
  /** Its batches, once `store` ran: usually one; none when every installation was skipped. */
  batches(): number[];
  /** The rows it skipped, by platform and reason (for the skip metric). */
  skipped(): ChunkResult['skipped'];
  /** How long its fan-out took, in seconds (for pns_fanout_duration_seconds); null when it did not run. */
  seconds(): number | null;
}

/** Small sends' fan-out, as the API runs it: the fan-out's own chunk statement, which stores the send too. */
@Injectable()
export class SmallSends {
  constructor(
    private readonly fanOuts: FanOutRepository,
    private readonly credentials: CredentialsService,
    private readonly config: EnvironmentVariables,
    @Inject(PUSH_PROVIDERS) private readonly providers: PushProvider[],
  ) {}

  /** The plan of one small send; its parameters are read before the transaction begins (credentials are cached per process). */
  async plan(
    appId: string,
    notificationId: string,
    recipients: SmallSendRecipients,
    options: NotificationOptions | null,
    silent: boolean,
  ): Promise<SmallSendPlan> {
    const credentials = await this.credentials.forDelivery(appId);
    const params: ChunkParams = {
      appId,
      // Every id in one chunk: SMALL_SEND_MAX_RECIPIENTS is at most 100.
      chunkSize: SMALL_SEND_CHUNK,
      batchSize: this.config.DELIVERY_BATCH_SIZE,
      wanted: wantedPlatforms(options),
      configured: configuredPlatforms(this.providers, credentials),
      silentless: silent ? SILENTLESS : [],
      fixedDue: null,
      cap: null,
      paceMs: null,
    };
    let chunk: ChunkResult | null = null;
    let seconds: number | null = null;
    return {
      id: notificationId,
      store: async <Row>(insert: NotificationInsert) => {
        const started = process.hrtime.bigint();
        const { row, chunk: done } = await this.fanOuts.storeSmallSend<Row>(insert, notificationId, params, recipients);
        seconds = Number(process.hrtime.bigint() - started) / 1e9;
        chunk = done;
        return row;
      },
      batches: () => chunk?.batches.map((b) => b.batch) ?? [],
      skipped: () => chunk?.skipped ?? [],
      seconds: () => seconds,
    };
  }
}
