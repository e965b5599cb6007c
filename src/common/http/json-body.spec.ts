import { parseInTurn, parseStrictJson } from './json-body';

describe('parseStrictJson', () => {
  it('takes an object or an array, with RFC 8259 white space before it, and empty as {}', () => {
    expect(parseStrictJson(' \t\r\n{"a":1}')).toEqual({ a: 1 });
    expect(parseStrictJson('[1]')).toEqual([1]);
    expect(parseStrictJson('')).toEqual({});
  });

  it('refuses any other JSON value and malformed text', () => {
    for (const text of ['"text"', '42', 'null', 'true', '\u00a0{}', '{"a":']) expect(() => parseStrictJson(text)).toThrow(SyntaxError);
  });
});

describe('parseInTurn', () => {
  it('runs the first large body at once and each one after it in a turn of the event loop of its own', async () => {
    const order: string[] = [];
    for (const name of ['a', 'b', 'c']) parseInTurn(() => order.push(name));
    // Queued after the three: it must run before the third, which waits for a turn of its own.
    setImmediate(() => order.push('other'));
    expect(order).toEqual(['a']);
    // A fourth task, queued last, runs after the third: no wait on the clock.
    await new Promise<void>((resolve) => parseInTurn(resolve));
    expect(order).toEqual(['a', 'b', 'other', 'c']);
  });
});
