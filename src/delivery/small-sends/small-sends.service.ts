import { Injectable } from '@nestjs/common';
import { contentOf, NewNotification, NotificationRow } from '../../common/notification';
import { channelsOf } from '../../common/notification-options';
import type { CarriedContent } from '../../common/queues';
import { EnvironmentVariables } from '../../config/env';
import { CredentialsService } from '../../credentials/credentials.service';
import { ChunkResult, wantedPlatforms } from '../fan-out/chunk-statement';
import { SILENTLESS } from '../providers/payloads';
import { isPartitionRace, isSmallSend, smallSendIds } from './small-send';
import { SmallSendsRepository, StoredSmallSend } from './small-sends.repository';

/** One chunk takes every id of a small send (SMALL_SEND_MAX_RECIPIENTS is at most this). */
const SMALL_SEND_CHUNK = 100;

/** A small send as stored with its rows: what the API answers and queues. */
export interface StoredSend {
  row: NotificationRow;
  /** Its delivery batches: usually one; none when every installation was skipped. */
  batches: number[];
  /** The rows it skipped, by platform and reason (for the skip metric). */
  skipped: ChunkResult['skipped'];
  /** How long its fan-out took, in seconds (pns_fanout_duration_seconds). */
  seconds: number;
  /** The notification for its batches' jobs: the worker does not read it again. */
  carried: CarriedContent;
}

/** Small sends (docs/api.md#small-sends), as the API runs them: stored and fanned out in one statement. */
@Injectable()
export class SmallSendsService {
  constructor(
    private readonly smallSends: SmallSendsRepository,
    private readonly credentials: CredentialsService,
    private readonly config: EnvironmentVariables,
  ) {}

  /** Whether `notification` is a small send, fanned out by the API. */
  accepts(notification: NewNotification): boolean {
    return isSmallSend(notification, this.config.SMALL_SEND_MAX_RECIPIENTS, Date.now());
  }

  /**
   * Stores a small send with its rows (and its Idempotency-Key's link under `key`); null when the
   * statement met the partitions of deliveries in the making: the caller stores it as any send.
   */
  async store(notification: NewNotification, key: string | null): Promise<StoredSend | null> {
    const ids = smallSendIds(notification)!.slice(0, SMALL_SEND_CHUNK);
    // Read before the statement: credentials are cached per process.
    const configured = await this.credentials.providersForDelivery(notification.app_id);
    const started = process.hrtime.bigint();
    let stored: StoredSmallSend;
    try {
      stored = await this.smallSends.store(
        notification,
        {
          appId: notification.app_id,
          notificationId: notification.id,
          batchSize: this.config.DELIVERY_BATCH_SIZE,
          wanted: wantedPlatforms(notification.options),
          configured,
          silentless: notification.title === null ? SILENTLESS : [],
          batches: 0,
          canceled: false,
          due: { zones: [], dues: [], quietSkips: [], fallback: null, fallbackQuietSkip: false },
          cap: null,
          paceMs: null,
          advanced: ids.length,
          walked: false,
          countUsers: notification.recipient_kind === 'user_ids',
          channels: channelsOf(notification.options),
          topic: notification.options?.topic ?? null,
          marketing: notification.options?.category === 'marketing',
          variants: null,
        },
        ids,
        key,
      );
    } catch (error) {
      if (isPartitionRace(error)) return null;
      throw error;
    }
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    // The row answers with the chunk's own columns beside the notification's; the resource reads the notification's.
    const { skipped_by_reason, batches, ...row } = stored;
    return {
      row,
      batches: batches.map((b) => b.batch),
      skipped: skipped_by_reason,
      seconds,
      carried: { ...contentOf(row), processing_started_at: row.processing_started_at!.toISOString() },
    };
  }
}
