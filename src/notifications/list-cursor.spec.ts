import { randomUUID } from 'node:crypto';
import { cursorKey, decodeCursor, encodeCursor, InvalidCursorError, sealCursor } from './list-cursor';

const KEY = cursorKey('dGVzdC1rZXktdGVzdC1rZXktdGVzdC1rZXktdGVzdC0=');
const OTHER_KEY = cursorKey('b3RoZXIta2V5LW90aGVyLWtleS1vdGhlci1rZXktMDA=');
const ID = '0b6f2f3e-6b1c-4d3a-9a57-2f8d9c1e4b10';
const position = { createdAtMicros: '1795420800123456', id: ID };

describe('list cursors', () => {
  it('round-trips a position, and is opaque text safe in a query string', () => {
    const cursor = encodeCursor(KEY, position);
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect(decodeCursor(KEY, cursor)).toEqual(position);
    const id = randomUUID();
    expect(decodeCursor(KEY, encodeCursor(KEY, { createdAtMicros: '0', id }))).toEqual({ createdAtMicros: '0', id });
  });

  it('refuses a cursor signed with another key', () => {
    expect(() => decodeCursor(KEY, encodeCursor(OTHER_KEY, position))).toThrow(InvalidCursorError);
  });

  it('refuses any tampering with the payload or the signature', () => {
    const cursor = encodeCursor(KEY, position);
    const [payload, mac] = cursor.split('.');
    const otherPayload = Buffer.from(`1795420800123457:${ID}`).toString('base64url');
    const flipped = (text: string, i: number) => text.slice(0, i) + (text[i] === 'A' ? 'B' : 'A') + text.slice(i + 1);
    for (const forged of [
      `${otherPayload}.${mac}`,
      `${payload}.${flipped(mac, 0)}`,
      `${flipped(payload, 3)}.${mac}`,
      `${payload}.${mac.slice(0, -1)}`,
      `${payload}.${mac}=`,
      `${payload}`,
      `.${mac}`,
      '',
      'garbage',
    ]) {
      expect(() => decodeCursor(KEY, forged)).toThrow(InvalidCursorError);
    }
  });

  it('refuses trailing segments, signed or not', () => {
    const cursor = encodeCursor(KEY, position);
    expect(() => decodeCursor(KEY, `${cursor}.extra`)).toThrow(InvalidCursorError);
    expect(() => decodeCursor(KEY, sealCursor(KEY, `${position.createdAtMicros}:${ID}:extra`))).toThrow(InvalidCursorError);
    expect(() => decodeCursor(KEY, sealCursor(KEY, `${position.createdAtMicros}:${ID}|x`))).toThrow(InvalidCursorError);
  });

  // Even correctly signed (a leaked APP_KEY), a position must be one PostgreSQL takes as it is.
  it.each([
    ['+275760-09-13T00:00:00.000Z', '+275760-09-13T00:00:00.000Z'],
    ['an ISO date', '2026-11-23T10:00:00.000Z'],
    ['a year with a trailing segment', '2020|1'],
    ['a negative number', '-1'],
    ['a leading zero', '0123'],
    ['a fraction', '1.5'],
    ['past year 9999', '253402300800000000'],
    ['empty', ''],
  ])('refuses a signed cursor whose timestamp is %s', (_name, micros) => {
    expect(() => decodeCursor(KEY, sealCursor(KEY, `${micros}:${ID}`))).toThrow(InvalidCursorError);
  });

  it.each([
    ['not a UUID', 'abc'],
    ['an upper-case UUID', ID.toUpperCase()],
    ['a UUID with a trailing newline', `${ID}\n`],
    ['empty', ''],
  ])('refuses a signed cursor whose id is %s', (_name, id) => {
    expect(() => decodeCursor(KEY, sealCursor(KEY, `${position.createdAtMicros}:${id}`))).toThrow(InvalidCursorError);
  });

  // The forged cursors that reached PostgreSQL and answered 500 before.
  it.each(['1', '2020', '+275760-09-13T00:00:00.000Z'])('refuses the cursor %j as given', (cursor) => {
    expect(() => decodeCursor(KEY, cursor)).toThrow(InvalidCursorError);
    expect(() => decodeCursor(KEY, Buffer.from(cursor).toString('base64url'))).toThrow(InvalidCursorError);
  });

  it('refuses the old unsigned cursors (base64url of "<date>|<id>")', () => {
    for (const date of ['1', '2020', '+275760-09-13T00:00:00.000Z', '2026-11-23 10:00:00.123456+00']) {
      expect(() => decodeCursor(KEY, Buffer.from(`${date}|${ID}`).toString('base64url'))).toThrow(InvalidCursorError);
    }
  });
});
