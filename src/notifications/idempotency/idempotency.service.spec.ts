import { canonicalJson, requestHash } from './idempotency.service';

describe('canonical JSON of a request body', () => {
  it('sorts object keys at every depth and keeps array order', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: null } })).toBe('{"a":{"c":null,"d":[3,{"y":2,"z":1}]},"b":1}');
  });

  it('writes scalars as JSON does, and what JSON cannot hold as null', () => {
    expect(canonicalJson('é"\n')).toBe(JSON.stringify('é"\n'));
    expect(canonicalJson(1.5)).toBe('1.5');
    expect(canonicalJson(true)).toBe('true');
    expect(canonicalJson(undefined)).toBe('null');
    expect(canonicalJson([])).toBe('[]');
    expect(canonicalJson({})).toBe('{}');
  });

  it('gives bodies that differ only in key order the same hash, and any other difference another', () => {
    const a = { recipients: { user_ids: ['u1', 'u2'] }, notification: { title: 'T', body: 'B' } };
    const b = { notification: { body: 'B', title: 'T' }, recipients: { user_ids: ['u1', 'u2'] } };
    expect(requestHash(a)).toBe(requestHash(b));
    expect(requestHash(a)).toMatch(/^[0-9a-f]{64}$/);
    expect(requestHash(a)).not.toBe(requestHash({ ...b, recipients: { user_ids: ['u2', 'u1'] } }));
    expect(requestHash({ a: '1' })).not.toBe(requestHash({ a: 1 }));
  });
});
