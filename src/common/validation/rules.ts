import { Type } from 'class-transformer';
import {
  IsDefined,
  IsOptional,
  registerDecorator,
  ValidateIf,
  ValidateNested,
  ValidationArguments,
} from 'class-validator';

/**
 * Validation rules that produce the API's messages ("The notification.title field is
 * required."). A rule returns a message template with `:attribute`, which the validation pipe
 * replaces by the dotted request path, or null when the value passes. One decorator per field
 * type keeps a single, predictable message per field (the pipe stops at a field's first error).
 */
export type Check = (value: unknown) => string | null;

/** Marker a list rule returns when only its items failed: the pipe reports each item's path. */
export const ITEM_ERRORS = '__item_errors__';

export interface ListContext {
  item: Check;
}

function rule(name: string, check: Check, context?: ListContext): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name,
      target: target.constructor,
      propertyName: propertyName as string,
      options: context ? { context } : {},
      validator: {
        validate: (value: unknown) => check(value) === null,
        defaultMessage: (args?: ValidationArguments) => check(args?.value) ?? '',
      },
    });
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
const codePoints = (s: string) => (s.length > 0 && /[\uD800-\uDFFF]/.test(s) ? Array.from(s).length : s.length);

/** Absent and null are both "not given". */
export const Optional = () => IsOptional();
/** Absent is "not given"; null is checked (and rejected) like any other value. */
export const OptionalNotNull = () => ValidateIf((_object: unknown, value: unknown) => value !== undefined);
export const Required = () => IsDefined({ message: 'The :attribute field is required.' });

export interface StringRule {
  min?: number;
  max?: number;
  pattern?: RegExp;
  patternMessage?: string;
}

export function checkString({ min = 0, max, pattern, patternMessage }: StringRule): Check {
  return (value) => {
    if (typeof value !== 'string') return 'The :attribute field must be a string.';
    const length = codePoints(value);
    if (length < min) {
      return min === 1 ? 'The :attribute field must not be empty.' : `The :attribute field must be at least ${plural(min, 'character')}.`;
    }
    if (max !== undefined && length > max) return `The :attribute field must not be greater than ${plural(max, 'character')}.`;
    if (pattern && !pattern.test(value)) return patternMessage ?? 'The :attribute field format is invalid.';
    return null;
  };
}

export const Str = (options: StringRule = {}) => rule('string', checkString(options));

export function checkInt({ min, max }: { min?: number; max?: number }): Check {
  return (value) => {
    if (typeof value !== 'number' || !Number.isSafeInteger(value)) return 'The :attribute field must be an integer.';
    if (min !== undefined && value < min) return `The :attribute field must be at least ${min}.`;
    if (max !== undefined && value > max) return `The :attribute field must not be greater than ${max}.`;
    return null;
  };
}

export const Int = (options: { min?: number; max?: number }) => rule('integer', checkInt(options));

/** An integer given as a number or, in a query string, as digits. */
export const IntLike = (options: { min?: number; max?: number }) =>
  rule('integer', (value) => checkInt(options)(typeof value === 'string' && /^\d{1,15}$/.test(value) ? Number(value) : value));

export function checkIn(values: readonly string[]): Check {
  return (value) => (typeof value === 'string' && values.includes(value) ? null : 'The selected :attribute is invalid.');
}

export const In = (values: readonly string[]) => rule('in', checkIn(values));

export function HttpsUrl(max: number) {
  const asString = checkString({ max });
  return rule('httpsUrl', (value) => {
    const problem = asString(value);
    if (problem) return problem;
    try {
      const url = new URL(value as string);
      if (url.protocol === 'https:' && url.hostname) return null;
    } catch {
      // fall through to the message
    }
    return 'The :attribute field must be an absolute https:// URL.';
  });
}

/** An absolute URL (https://...) or an app deep link (myapp://path). */
export const LinkUrl = (max: number) =>
  rule(
    'linkUrl',
    checkString({
      max,
      pattern: /^[a-z][a-z0-9+.-]*:\/\/[^\s]+$/i,
      patternMessage: 'The :attribute field must be an absolute URL or an app deep link (scheme://...).',
    }),
  );

export const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

export function checkObject({ maxBytes, reservedKeys }: { maxBytes?: number; reservedKeys?: (key: string) => boolean } = {}): Check {
  return (value) => {
    if (!isPlainObject(value)) return 'The :attribute field must be an object.';
    const reserved = reservedKeys && Object.keys(value).find(reservedKeys);
    if (reserved !== undefined) return `The :attribute field must not use the reserved key "${reserved}".`;
    if (maxBytes !== undefined && Buffer.byteLength(JSON.stringify(value)) > maxBytes) {
      return `The :attribute field must not be larger than ${maxBytes} bytes when serialized as JSON.`;
    }
    return null;
  };
}

export const PlainObject = (options?: Parameters<typeof checkObject>[0]) => rule('object', checkObject(options));

/** A nested object validated against `cls`; unknown keys inside it are rejected too. */
export function Nested(cls: () => new () => object): PropertyDecorator {
  return (target, key) => {
    // Registered before ValidateNested so the type error is reported first.
    rule('object', checkObject())(target, key);
    ValidateNested()(target, key);
    Type(cls)(target, key);
  };
}

export function List({ min, max, item }: { min?: number; max?: number; item: Check }) {
  return rule(
    'list',
    (value) => {
      if (!Array.isArray(value)) return 'The :attribute field must be an array.';
      if (min !== undefined && value.length < min) return `The :attribute field must have at least ${plural(min, 'item')}.`;
      if (max !== undefined && value.length > max) return `The :attribute field must not have more than ${plural(max, 'item')}.`;
      return value.some((v) => item(v) !== null) ? ITEM_ERRORS : null;
    },
    { item },
  );
}

/** A base64url string that decodes to exactly `bytes` bytes (Web Push subscription keys). */
export const Base64Url = (bytes: number) =>
  rule('base64url', (value) => {
    if (typeof value !== 'string' || !/^[A-Za-z0-9_-]+={0,2}$/.test(value)) {
      return 'The :attribute field must be a base64url string.';
    }
    return Buffer.from(value, 'base64url').length === bytes ? null : `The :attribute field must encode exactly ${bytes} bytes.`;
  });
