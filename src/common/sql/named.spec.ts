import { compile, named, valuesOf, withNames } from './named';

describe('named SQL parameters', () => {
  it('numbers each name once, in order of first use', () => {
    expect(named('SELECT :a, :b, :a', { a: 1, b: 2 })).toEqual({ text: 'SELECT $1, $2, $1', values: [1, 2] });
  });

  it('leaves casts, slices and string text alone', () => {
    const { text } = named(`SELECT :id::uuid, x[1 : 2], '12:30', a::text FROM t WHERE y = :y_2`, { id: 'u', y_2: 3 });
    expect(text).toBe(`SELECT $1::uuid, x[1 : 2], '12:30', a::text FROM t WHERE y = $2`);
  });

  it('passes null and arrays through', () => {
    expect(named('SELECT :a, :b', { a: null, b: ['x'] }).values).toEqual([null, ['x']]);
  });

  it('throws on a missing name', () => {
    expect(() => named('SELECT :a, :b', { a: 1 })).toThrow(':b has no value');
  });

  it('throws on a name the statement does not have', () => {
    expect(() => named('SELECT :a', { a: 1, c: 2 })).toThrow('not in the statement: :c');
  });

  it('computes the text once per statement', () => {
    expect(compile('SELECT :once')).toBe(compile('SELECT :once'));
    expect(valuesOf(compile('SELECT :once'), { once: 1 })).toEqual([1]);
  });

  it('shows a compiled statement with its names', () => {
    const { text } = named('SELECT :first, :second, :first', { first: 1, second: 2 });
    expect(withNames(text)).toBe('SELECT :first, :second, :first');
    expect(withNames('SELECT $1 FROM never_compiled')).toBe('SELECT $1 FROM never_compiled');
  });
});
