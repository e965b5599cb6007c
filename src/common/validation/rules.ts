import { Type } from 'class-transformer';
import { ValidateNested } from 'class-validator';
import { ApiProperty, ApiPropertyOptions } from '@nestjs/swagger';
import {
  Check,
  described,
  INNER_ERRORS,
  isPlainObject,
  ITEM_ERRORS,
  markVerbatim,
  NOT_ALLOWED,
  plural,
  recordListBound,
  recordNestedClass,
  rule,
  siblingRule,
} from './framework';

/** Generic rules, one decorator each (see framework.ts). */

const codePoints = (s: string) => (s.length > 0 && /[\uD800-\uDFFF]/.test(s) ? Array.from(s).length : s.length);

export interface StringRule {
  min?: number;
  max?: number;
  pattern?: RegExp;
  patternMessage?: string;
}

export function checkString({ min = 0, max, pattern, patternMessage }: StringRule): Check {
  const schema: ApiPropertyOptions = { type: 'string', ...(min > 0 ? { minLength: min } : {}), ...(max !== undefined ? { maxLength: max } : {}) };
  if (pattern) schema.pattern = pattern.source;
  return described((value) => {
    if (typeof value !== 'string') return 'The :attribute field must be a string.';
    const length = codePoints(value);
    if (length < min) {
      return min === 1 ? 'The :attribute field must not be empty.' : `The :attribute field must be at least ${plural(min, 'character')}.`;
    }
    if (max !== undefined && length > max) return `The :attribute field must not be greater than ${plural(max, 'character')}.`;
    if (pattern && !pattern.test(value)) return patternMessage ?? 'The :attribute field format is invalid.';
    return null;
  }, schema);
}

export const Str = (options: StringRule = {}) => rule('string', checkString(options));

/** `not`: one refused value in the range (`badge_increment` 0), documented as `x-not`. */
export function checkInt({ min, max, not }: { min?: number; max?: number; not?: number }): Check {
  return described(
    (value) => {
      if (typeof value !== 'number' || !Number.isSafeInteger(value)) return 'The :attribute field must be an integer.';
      if (min !== undefined && value < min) return `The :attribute field must be at least ${min}.`;
      if (max !== undefined && value > max) return `The :attribute field must not be greater than ${max}.`;
      if (value === not) return `The :attribute field must not be ${not}.`;
      return null;
    },
    {
      type: 'integer',
      ...(min !== undefined ? { minimum: min } : {}),
      ...(max !== undefined ? { maximum: max } : {}),
      ...(not !== undefined ? { 'x-not': not } : {}),
    },
  );
}

export const Int = (options: { min?: number; max?: number; not?: number }) => rule('integer', checkInt(options));

export const IntLike = (options: { min?: number; max?: number }) => {
  const asInt = checkInt(options);
  return rule(
    'integer',
    described((value) => asInt(typeof value === 'string' && /^\d{1,15}$/.test(value) ? Number(value) : value), asInt.schema!),
  );
};

export function checkIn(values: readonly string[]): Check {
  return described((value) => (typeof value === 'string' && values.includes(value) ? null : 'The selected :attribute is invalid.'), {
    type: 'string',
    enum: [...values],
  });
}

export const In = (values: readonly string[]) => rule('in', checkIn(values));

export const INSTANT_MIN = Date.UTC(2000, 0, 1);
export const INSTANT_MAX = Date.UTC(2101, 0, 1);
const INSTANT = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.\d{1,6})?(?:Z|([+-])(\d{2}):(\d{2}))$/;

/** Epoch ms of an ISO 8601 date-time with an offset naming a real instant in 2000..2100, else null (Date.parse rolls 02-30 over). */
export function parseInstant(value: string): number | null {
  const m = INSTANT.exec(value);
  if (!m) return null;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number);
  const offsetMinutes = m[7] ? (m[7] === '-' ? -1 : 1) * (Number(m[8]) * 60 + Number(m[9])) : 0;
  if (hour > 23 || minute > 59 || second > 59 || Number(m[9] ?? 0) > 59 || Math.abs(offsetMinutes) > 14 * 60) return null;
  const local = Date.UTC(year, month - 1, day, hour, minute, second);
  const date = new Date(local);
  // Date.UTC rolls impossible days over into the next month: a real date survives the round trip.
  if (date.getUTCFullYear() !== year || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) return null;
  const instant = Date.parse(value);
  return instant >= INSTANT_MIN && instant < INSTANT_MAX ? instant : null;
}

export function checkInstant(): Check {
  return (value) => {
    if (typeof value !== 'string') return 'The :attribute field must be a string.';
    return parseInstant(value) === null
      ? 'The :attribute field must be a real ISO 8601 date-time with Z or a ±hh:mm offset, between the years 2000 and 2100.'
      : null;
  };
}

/** A date-time field (see parseInstant), with `maxDaysAhead` at most that far after now. */
export const Instant = ({ maxDaysAhead }: { maxDaysAhead?: number } = {}) => {
  const asInstant = checkInstant();
  return rule(
    'instant',
    described(
      (value) => {
        const problem = asInstant(value);
        if (problem || maxDaysAhead === undefined) return problem;
        return parseInstant(value as string)! > Date.now() + maxDaysAhead * 86_400_000
          ? `The :attribute field must not be more than ${plural(maxDaysAhead, 'day')} in the future.`
          : null;
      },
      {
        type: 'string',
        format: 'date-time',
        description: `ISO 8601 with Z or a ±hh:mm offset; a real instant from 2000-01-01T00:00:00Z to before 2101${
          maxDaysAhead === undefined ? '' : `, at most ${maxDaysAhead} days ahead`
        }.`,
        // JSON Schema cannot say "after now": the bound, for tools that read it.
        ...(maxDaysAhead === undefined ? {} : { 'x-max-days-ahead': maxDaysAhead }),
      },
    ),
  );
};

export const True = () =>
  rule(
    'true',
    described((value) => (value === true ? null : 'The :attribute field must be true.'), { type: 'boolean', enum: [true] }),
  );

/** Exactly one of `keys` is present, reported on the nested object's own path. */
export const ExactlyOneOf = (keys: readonly string[], message: string) =>
  rule('exactlyOne', (value) => {
    if (!isPlainObject(value)) return null; // the object rule reports it
    return keys.filter((key) => value[key] !== undefined).length === 1 ? null : message;
  });

/** Free-form keys whose values are objects of known `fields` (`notification.localizations`), errors at their own paths. */
export function KeyedObjects({
  maxKeys,
  key,
  keyMessage,
  fields,
  minFields = 0,
  schema,
}: {
  maxKeys: number;
  key: RegExp;
  keyMessage: string;
  fields: Record<string, Check>;
  minFields?: number;
  schema: ApiPropertyOptions;
}) {
  const names = Object.keys(fields);
  const problems = (value: unknown): [string, string][] => {
    const found: [string, string][] = [];
    for (const [name, entry] of Object.entries(value as Record<string, unknown>)) {
      if (!key.test(name)) found.push([name, keyMessage]);
      if (!isPlainObject(entry)) {
        found.push([name, 'The :attribute field must be an object.']);
        continue;
      }
      const given = Object.keys(entry);
      for (const field of given) {
        const check = Object.hasOwn(fields, field) ? fields[field] : null;
        const problem = check ? check(entry[field]) : NOT_ALLOWED;
        if (problem) found.push([`${name}.${field}`, problem]);
      }
      if (given.filter((field) => names.includes(field)).length < minFields) {
        found.push([name, `The :attribute field must contain at least one of ${names.join(', ')}.`]);
      }
    }
    return found;
  };
  return rule(
    'keyedObjects',
    described((value) => {
      if (!isPlainObject(value)) return 'The :attribute field must be an object.';
      if (Object.keys(value).length > maxKeys) return `The :attribute field must not have more than ${plural(maxKeys, 'key')}.`;
      return problems(value).length > 0 ? INNER_ERRORS : null;
    }, schema),
    { problems },
  );
}

export function checkObject({ maxBytes, reservedKey }: { maxBytes?: number; reservedKey?: (key: string) => string | null } = {}): Check {
  return (value) => {
    if (!isPlainObject(value)) return 'The :attribute field must be an object.';
    if (reservedKey) {
      for (const key of Object.keys(value)) {
        const why = reservedKey(key);
        if (why !== null) return `The :attribute field must not use the reserved key "${key}": ${why}.`;
      }
    }
    if (maxBytes !== undefined && Buffer.byteLength(JSON.stringify(value)) > maxBytes) {
      return `The :attribute field must not be larger than ${maxBytes} bytes when serialized as JSON.`;
    }
    return null;
  };
}

/** A free-form JSON object kept as parsed, away from class-transformer's key removal (JSON.parse makes `__proto__` an own key). */
export function PlainObject(options?: Parameters<typeof checkObject>[0]): PropertyDecorator {
  return (target, key) => {
    rule('object', described(checkObject(options), { type: 'object', additionalProperties: true }))(target, key);
    markVerbatim(target, key);
  };
}

export function Nested(cls: () => new () => object): PropertyDecorator {
  return (target, key) => {
    // Registered before ValidateNested so the type error is reported first.
    rule('object', checkObject())(target, key);
    recordNestedClass(target.constructor, key, cls);
    ValidateNested()(target, key);
    Type(cls)(target, key);
    // `type: () => ...`: Swagger tells a lazy type from a class by that function's name.
    ApiProperty({ type: () => cls() })(target, key);
  };
}

function listLengthProblem(value: unknown, min: number | undefined, max: number | undefined): string | null {
  if (!Array.isArray(value)) return 'The :attribute field must be an array.';
  if (min !== undefined && value.length < min) return `The :attribute field must have at least ${plural(min, 'item')}.`;
  if (max !== undefined && value.length > max) return `The :attribute field must not have more than ${plural(max, 'item')}.`;
  return null;
}

export function List({ min, max, item }: { min?: number; max?: number; item: Check }): PropertyDecorator {
  const check = described(
    (value) => {
      const problem = listLengthProblem(value, min, max);
      if (problem) return problem;
      return (value as unknown[]).some((v) => item(v) !== null) ? ITEM_ERRORS : null;
    },
    {
      type: 'array',
      items: item.schema as object,
      ...(min !== undefined ? { minItems: min } : {}),
      ...(max !== undefined ? { maxItems: max } : {}),
    },
  );
  return (target, key) => {
    if (max !== undefined) recordListBound(target.constructor, key, { max, check });
    rule('list', check, { item })(target, key);
  };
}

export const Base64Url = (bytes: number) => {
  const chars = Math.ceil((bytes * 4) / 3);
  const padding = (4 - (chars % 4)) % 4;
  return rule(
    'base64url',
    described(
      (value) => {
        if (typeof value !== 'string' || !/^[A-Za-z0-9_-]+={0,2}$/.test(value)) {
          return 'The :attribute field must be a base64url string.';
        }
        return Buffer.from(value, 'base64url').length === bytes ? null : `The :attribute field must encode exactly ${bytes} bytes.`;
      },
      { type: 'string', pattern: `^[A-Za-z0-9_-]{${chars}}${padding ? `(?:={${padding}})?` : ''}$` },
    ),
  );
};

export const Bool = () =>
  rule(
    'boolean',
    described((value) => (typeof value === 'boolean' ? null : 'The :attribute field must be true or false.'), { type: 'boolean' }),
  );

export const Num = ({ min, max }: { min: number; max: number }) =>
  rule(
    'number',
    described(
      (value) => {
        if (typeof value !== 'number' || !Number.isFinite(value)) return 'The :attribute field must be a number.';
        return value < min || value > max ? `The :attribute field must be between ${min} and ${max}.` : null;
      },
      { type: 'number', minimum: min, maximum: max },
    ),
  );

/** A rule that reads sibling fields too (`renotify` needs `tag`), reported on the decorated field. */
export const WithSiblings = siblingRule;

/** 1..`max` objects validated against `cls`, errors at `field.<index>.<key>`. */
export function NestedList(cls: () => new () => object, { min, max }: { min: number; max: number }): PropertyDecorator {
  const check = described((value) => listLengthProblem(value, min, max), { type: 'array', minItems: min, maxItems: max });
  return (target, key) => {
    recordListBound(target.constructor, key, { max, check });
    rule('nestedList', check)(target, key);
    ValidateNested({ each: true, message: 'The :attribute field must be an object.' })(target, key);
    Type(cls)(target, key);
    ApiProperty({ type: () => cls(), isArray: true })(target, key);
  };
}
