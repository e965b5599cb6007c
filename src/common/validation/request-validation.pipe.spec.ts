import { ValidationPipe } from '@nestjs/common';
import { ValidationFailedError } from '../errors';
import { Optional } from './framework';
import { RequestValidationPipe } from './request-validation.pipe';
import { checkString, List, Nested, PlainObject } from './rules';
import { MAX_ARRAY_ITEMS_TOTAL } from './validation-errors';

class InnerDto {
  @Optional() @List({ max: 3, item: checkString({ max: 4 }) }) ids?: string[];
}

class BodyDto {
  @Optional() @List({ max: 100, item: checkString({ max: 4 }) }) tags?: string[];
  @Optional() @Nested(() => InnerDto) inner?: InnerDto;
  @Optional() @PlainObject({ maxBytes: 4096 }) data?: Record<string, unknown>;
}

/** An array of `length` items that counts every look at an item. */
function countingList(length: number) {
  const looks = { count: 0 };
  const list = new Proxy(
    Array.from({ length }, () => 'a'),
    {
      get(target, key, receiver) {
        if (typeof key === 'string' && /^\d+$/.test(key)) looks.count++;
        return Reflect.get(target, key, receiver) as unknown;
      },
    },
  );
  return { list, looks };
}

async function errorsOf(body: unknown): Promise<Record<string, string[]>> {
  const pipe = new RequestValidationPipe();
  try {
    await pipe.transform(body, { type: 'body', metatype: BodyDto });
  } catch (error) {
    if (error instanceof ValidationFailedError) return error.errors;
    throw error;
  }
  throw new Error('the body was accepted');
}

describe('RequestValidationPipe and long lists', () => {
  it('refuses a list over its bound on its length, without looking at one item', async () => {
    const { list, looks } = countingList(200_000);
    expect(await errorsOf({ tags: list })).toEqual({ tags: ['The tags field must not have more than 100 items.'] });
    expect(looks.count).toBe(0);
  });

  it('refuses a list of a nested object at its dotted path, without looking at one item', async () => {
    const { list, looks } = countingList(50_000);
    expect(await errorsOf({ inner: { ids: list } })).toEqual({ 'inner.ids': ['The inner.ids field must not have more than 3 items.'] });
    expect(looks.count).toBe(0);
  });

  it('reports every list over its bound at once', async () => {
    expect(await errorsOf({ tags: Array(101).fill('a'), inner: { ids: ['a', 'b', 'c', 'd'] } })).toEqual({
      tags: ['The tags field must not have more than 100 items.'],
      'inner.ids': ['The inner.ids field must not have more than 3 items.'],
    });
  });

  it('still checks the items of a list within its bound, at their own paths', async () => {
    expect(await errorsOf({ tags: ['ok', 'too long'] })).toEqual({ 'tags.1': ['The tags.1 field must not be greater than 4 characters.'] });
  });

  it(`refuses free-form arrays of more than ${MAX_ARRAY_ITEMS_TOTAL} items in all before walking them`, async () => {
    const { list, looks } = countingList(MAX_ARRAY_ITEMS_TOTAL + 1);
    expect(await errorsOf({ data: { list } })).toEqual({
      body: [`The request body must not have more than ${MAX_ARRAY_ITEMS_TOTAL.toLocaleString('en')} array items in all (arrays at any depth).`],
    });
    expect(looks.count).toBe(0);
  });
});

describe('RequestValidationPipe and prototype keys', () => {
  const transform = (json: string) => new RequestValidationPipe().transform(JSON.parse(json), { type: 'body', metatype: BodyDto }) as Promise<BodyDto>;

  it('strips __proto__, constructor and prototype keys as Nest does, except in verbatim fields', async () => {
    const dto = await transform(
      '{"__proto__": {"polluted": true}, "tags": ["a"], "inner": {"constructor": {"x": 1}, "prototype": 2, "ids": ["b"]}, "data": {"constructor": "c", "__proto__": {"d": 1}}}',
    );
    expect(dto).toBeInstanceOf(BodyDto);
    expect((dto as unknown as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.keys(dto.inner!)).toEqual(['ids']);
    expect(dto.inner).toBeInstanceOf(InnerDto);
    expect(JSON.stringify(dto.data)).toBe('{"constructor":"c","__proto__":{"d":1}}');
  });

  it("walks a body again with Nest's walks only when it has prototype keys", async () => {
    const pipe = ValidationPipe.prototype as unknown as Record<'stripProtoKeys' | 'closeArrayGaps' | 'findNestedBinaryValues', () => unknown>;
    const walks = ['stripProtoKeys', 'closeArrayGaps', 'findNestedBinaryValues'] as const;
    const spies = walks.map((name) => jest.spyOn(pipe, name));
    try {
      await transform('{"tags": ["a"], "inner": {"ids": ["b"]}, "data": {"c": "d"}}');
      expect(spies.map((spy) => spy.mock.calls.length)).toEqual([0, 0, 0]);
      await transform('{"tags": ["a"], "inner": {"ids": ["b"], "constructor": 1}}');
      expect(spies.map((spy) => spy.mock.calls.length > 0)).toEqual([true, true, true]);
    } finally {
      for (const spy of spies) spy.mockRestore();
    }
  });
});
