import { MAX_KEYS_PER_OBJECT, MAX_KEYS_TOTAL, MAX_NESTING, mergeBags, requestShapeProblems } from './validation-errors';

const nested = (depth: number, leaf: unknown = 1): unknown => {
  let value = leaf;
  for (let i = 0; i < depth; i++) value = { a: value };
  return value;
};

describe('requestShapeProblems', () => {
  it('walks 100,000 levels without overflowing the stack and reports the top-level field', () => {
    const { errors, tooDeep } = requestShapeProblems({ ok: 'x', data: nested(100_000) });
    expect(tooDeep).toBe(true);
    expect(Object.keys(errors)).toEqual(['data']);
    expect(errors.data).toEqual([`The data field must not nest objects or arrays more than ${MAX_NESTING} levels deep.`]);
  });

  it(`accepts ${MAX_NESTING} levels inside a top-level field and refuses one more`, () => {
    expect(requestShapeProblems({ data: nested(MAX_NESTING) }).tooDeep).toBe(false);
    expect(requestShapeProblems({ data: nested(MAX_NESTING + 1) }).tooDeep).toBe(true);
  });

  it('reports NUL and lone surrogates in values and keys at their dotted paths, in document order', () => {
    const { errors, tooDeep } = requestShapeProblems({
      title: 'bad \ud800 half',
      data: { ['k\udc00']: 1, list: ['ok', 'x\u0000'] },
      fine: '😀 é \u2028',
    });
    expect(tooDeep).toBe(false);
    expect(errors).toEqual({
      title: ['The title field must not contain unpaired surrogate characters.'],
      'data.k\udc00': ['The data.k\udc00 field name must not contain unpaired surrogate characters.'],
      'data.list.1': ['The data.list.1 field must not contain NUL characters.'],
    });
    expect(Object.keys(errors)).toEqual(['title', 'data.k\udc00', 'data.list.1']);
  });

  it('treats keys named like Object.prototype members as plain keys', () => {
    const body = JSON.parse('{"toString":"a\\u0000","constructor":"\\u0000","valueOf":"\\u0000","__proto__":"\\u0000"}');
    const { errors } = requestShapeProblems(body);
    expect(Object.keys(errors)).toEqual(['toString', 'constructor', 'valueOf', '__proto__']);
    expect(Object.keys(mergeBags(errors, { toString: ['another'] }))).toEqual(['toString', 'constructor', 'valueOf', '__proto__']);
  });
});

describe('requestShapeProblems: keys', () => {
  const keys = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, i]));

  it(`accepts ${MAX_KEYS_PER_OBJECT} keys in an object and refuses one more, at its path`, () => {
    expect(requestShapeProblems({ data: keys(MAX_KEYS_PER_OBJECT) }).tooManyKeys).toBe(false);
    const { errors, tooManyKeys } = requestShapeProblems({ data: { inner: keys(MAX_KEYS_PER_OBJECT + 1) } });
    expect(tooManyKeys).toBe(true);
    expect(errors).toEqual({ 'data.inner': [`The data.inner field must not have more than ${MAX_KEYS_PER_OBJECT} keys.`] });
    expect(Object.keys(requestShapeProblems(keys(MAX_KEYS_PER_OBJECT + 1)).errors)).toEqual(['body']);
  });

  it(`refuses more than ${MAX_KEYS_TOTAL} keys in all at body; array items do not count`, () => {
    const wide = Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`o${i}`, keys(MAX_KEYS_PER_OBJECT - 1)]));
    expect(requestShapeProblems(wide).tooManyKeys).toBe(false);
    const { errors, tooManyKeys } = requestShapeProblems({ ...wide, extra: keys(11) });
    expect(tooManyKeys).toBe(true);
    expect(Object.keys(errors)).toEqual(['body']);
    expect(requestShapeProblems({ list: Array.from({ length: MAX_KEYS_TOTAL + 5_000 }, (_, i) => i) }).tooManyKeys).toBe(false);
  });
});

describe('requestShapeProblems: prototype keys', () => {
  it('notes an own __proto__, constructor or prototype key at any depth', () => {
    expect(requestShapeProblems({ a: { b: [{ c: 1 }] } }).prototypeKeys).toBe(false);
    for (const key of ['__proto__', 'constructor', 'prototype']) {
      expect(requestShapeProblems(JSON.parse(`{"a": {"b": [{"${key}": 1}]}}`)).prototypeKeys).toBe(true);
    }
  });
});
