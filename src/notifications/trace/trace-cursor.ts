import { isUuid } from '../../common/uuid';
import { cursorKey, InvalidCursorError, openCursor, sealCursor } from '../list-cursor';

/**
 * Cursors of the delivery trace (docs/api.md#delivery-trace), signed as list cursors are
 * (list-cursor.ts) but under a key of their own, so neither list takes the other's cursors.
 */
export function traceCursorKey(appKey: string): Buffer {
  return cursorKey(appKey, 'pns delivery trace cursor v1');
}

export function encodeTraceCursor(key: Buffer, notificationId: string, position: string): string {
  return sealCursor(key, `${notificationId}:${position}`);
}

/** The position a cursor names for this notification, or InvalidCursorError. */
export function decodeTraceCursor(key: Buffer, cursor: string, notificationId: string): string {
  const fields = openCursor(key, cursor).split(':');
  if (fields.length !== 2) throw new InvalidCursorError('wrong number of parts');
  const [notification, position] = fields;
  if (notification !== notificationId.toLowerCase()) throw new InvalidCursorError('another notification');
  // Lower case only, as PostgreSQL prints uuids: a position has exactly one spelling.
  if (!isUuid(position) || position !== position.toLowerCase()) throw new InvalidCursorError('bad position');
  return position;
}
