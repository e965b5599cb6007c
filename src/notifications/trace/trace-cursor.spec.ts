import { randomUUID } from 'node:crypto';
import { cursorKey, encodeCursor, InvalidCursorError, sealCursor } from '../list-cursor';
import { decodeTraceCursor, encodeTraceCursor, traceCursorKey } from './trace-cursor';

const APP_KEY = 'dGVzdC1rZXktdGVzdC1rZXktdGVzdC1rZXktdGVzdC0=';
const KEY = traceCursorKey(APP_KEY);
const NOTIFICATION = '0b6f2f3e-6b1c-4d3a-9a57-2f8d9c1e4b10';
const POSITION = '7d1c2e9a-5f3b-4c6d-8e9f-0a1b2c3d4e5f';

describe('delivery trace cursors', () => {
  it('round-trips a position for its notification, as opaque text safe in a query string', () => {
    const cursor = encodeTraceCursor(KEY, NOTIFICATION, POSITION);
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect(decodeTraceCursor(KEY, cursor, NOTIFICATION)).toBe(POSITION);
    // The notification id from the path may come in upper case; the cursor still belongs to it.
    expect(decodeTraceCursor(KEY, cursor, NOTIFICATION.toUpperCase())).toBe(POSITION);
  });

  it("refuses another notification's cursor", () => {
    expect(() => decodeTraceCursor(KEY, encodeTraceCursor(KEY, randomUUID(), POSITION), NOTIFICATION)).toThrow(InvalidCursorError);
  });

  it("refuses a notifications list cursor, and a cursor signed under the list's key", () => {
    const listKey = cursorKey(APP_KEY);
    expect(() => decodeTraceCursor(KEY, encodeCursor(listKey, { createdAtMicros: '1', id: POSITION }), NOTIFICATION)).toThrow(InvalidCursorError);
    expect(() => decodeTraceCursor(KEY, encodeTraceCursor(listKey, NOTIFICATION, POSITION), NOTIFICATION)).toThrow(InvalidCursorError);
    expect(() =>
      decodeTraceCursor(KEY, encodeTraceCursor(traceCursorKey('b3RoZXIta2V5LW90aGVyLWtleS1vdGhlci1rZXktMDA='), NOTIFICATION, POSITION), NOTIFICATION),
    ).toThrow(InvalidCursorError);
  });

  it('refuses any tampering and anything malformed', () => {
    const [payload, mac] = encodeTraceCursor(KEY, NOTIFICATION, POSITION).split('.');
    const forgedPayload = Buffer.from(`${NOTIFICATION}:${randomUUID()}`).toString('base64url');
    for (const forged of [`${forgedPayload}.${mac}`, `${payload}.${mac.slice(0, -1)}`, `${payload}.${mac}=`, payload, '', 'garbage', `${payload}.${mac}.x`]) {
      expect(() => decodeTraceCursor(KEY, forged, NOTIFICATION)).toThrow(InvalidCursorError);
    }
  });

  // Even correctly signed (a leaked APP_KEY), a position must be one PostgreSQL takes as it is.
  it.each([
    ['not a UUID', 'abc'],
    ['an upper-case UUID', POSITION.toUpperCase()],
    ['empty', ''],
    ['with a trailing part', `${POSITION}:x`],
  ])('refuses a signed cursor whose position is %s', (_name, position) => {
    expect(() => decodeTraceCursor(KEY, sealCursor(KEY, `${NOTIFICATION}:${position}`), NOTIFICATION)).toThrow(InvalidCursorError);
  });
});
