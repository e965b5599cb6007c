import { Injectable } from '@nestjs/common';
import { NotFoundError, ValidationFailedError } from '../../common/errors';
import { isUuid } from '../../common/uuid';
import { DeliveryStatus, SkipReason } from '../../common/vocabulary';
import { EnvironmentVariables } from '../../config/env';
import { DeliveryTraceRepository, TraceRow } from './delivery-trace.repository';
import { DeliveryResource, toDeliveryResource } from './delivery.resource';
import { InvalidCursorError } from '../list-cursor';
import { decodeTraceCursor, encodeTraceCursor, traceCursorKey } from './trace-cursor';

/** How many deliveries one page may look at when it filters by status (docs/api.md#delivery-trace). */
export const TRACE_SCAN_ROWS = 10_000;

export interface TracePage<T = DeliveryResource> {
  data: T[];
  meta: { next_cursor: string | null };
}

/** The delivery trace of a notification (docs/api.md#delivery-trace): one entry per installation its fan-out considered. */
@Injectable()
export class DeliveryTraceService {
  private readonly cursorKey: Buffer;

  constructor(
    private readonly trace: DeliveryTraceRepository,
    config: EnvironmentVariables,
  ) {
    this.cursorKey = traceCursorKey(config.APP_KEY);
  }

  /** `reason` filters as `status` does, and `view` maps each entry (the operator dashboard's trace; the API has neither). */
  async page<T = DeliveryResource>(
    appId: string,
    notificationId: string,
    limit: number,
    status: DeliveryStatus | null,
    cursor?: string,
    reason: string | null = null,
    view: (row: TraceRow) => T = toDeliveryResource as never,
  ): Promise<TracePage<T>> {
    if (!isUuid(notificationId)) throw new NotFoundError();
    const id = notificationId.toLowerCase();
    // A bad cursor is a 422 even for an unknown notification: validation comes first (docs/api.md#errors).
    const after = cursor === undefined ? null : this.positionOf(cursor, id);
    const notification = await this.trace.notification(appId, id);
    if (!notification) throw new NotFoundError();
    // Not started (held until its send_at): the fan-out has considered no installation yet.
    if (notification.started_at === null) return { data: [], meta: { next_cursor: null } };

    const rows = await this.trace.page({
      notificationId: id,
      startedAt: notification.started_at,
      after,
      status,
      reason,
      scanLimit: TRACE_SCAN_ROWS,
      rows: limit + 1,
    });
    const { entries, next } = pageOf(rows, limit, TRACE_SCAN_ROWS);
    return {
      data: entries.map((row) => view({ ...row, attempts: providerAttempts(row) })),
      meta: { next_cursor: next === null ? null : encodeTraceCursor(this.cursorKey, id, next) },
    };
  }

  private positionOf(cursor: string, notificationId: string): string {
    try {
      return decodeTraceCursor(this.cursorKey, cursor, notificationId);
    } catch (error) {
      if (error instanceof InvalidCursorError) throw ValidationFailedError.of('cursor', 'The cursor field is invalid.');
      throw error;
    }
  }
}

/** A page from `limit + 1` rows: the matching ones up to `limit`, and where the next page starts. */
export function pageOf(rows: readonly TraceRow[], limit: number, scanLimit: number): { entries: TraceRow[]; next: string | null } {
  const matching = rows.filter((row) => row.matches);
  if (matching.length > limit) {
    const entries = matching.slice(0, limit);
    return { entries, next: entries[entries.length - 1].position };
  }
  const last = rows[rows.length - 1];
  return { entries: matching, next: last && last.scanned >= scanLimit ? last.position : null };
}

/** Provider attempts so far (docs/api.md#delivery-trace). */
export function providerAttempts(row: Pick<TraceRow, 'status' | 'reason' | 'attempts'>): number {
  return row.status === 'skipped' && row.reason !== SkipReason.Canceled && row.attempts > 0 ? row.attempts - 1 : row.attempts;
}
