import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptions } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  IsDefined,
  IsOptional,
  registerDecorator,
  ValidateIf,
  ValidateNested,
  ValidationArguments,
} from 'class-validator';
import { env } from '../../config/env';
import { URL_PATH_AND_QUERY, WebPushHosts } from '../web-push-hosts';

/**
 * Validation rules that produce the API's messages ("The notification.title field is
 * required."). A rule returns a message template with `:attribute`, which the validation pipe
 * replaces by the dotted request path, or null when the value passes. One decorator per field
 * type keeps a single, predictable message per field (the pipe stops at a field's first error).
 *
 * Each rule also describes itself to OpenAPI (type, bounds, pattern, enum), so a bound is written
 * once, here, and the document cannot say something else than the check. A field's own
 * @ApiProperty adds only prose: description and example.
 */
export type Check = ((value: unknown) => string | null) & { schema?: ApiPropertyOptions };

/** A check with the OpenAPI schema of what it accepts. */
const described = (check: (value: unknown) => string | null, schema: ApiPropertyOptions): Check => Object.assign(check, { schema });

/** Marker a list rule returns when only its items failed: the pipe reports each item's path. */
export const ITEM_ERRORS = '__item_errors__';

export interface ListContext {
  item: Check;
}

/**
 * Marker a rule returns when the problems are inside the value (an object with free-form keys):
 * the pipe reports each at its own path, from the rule's `problems` (paths relative to the field).
 */
export const INNER_ERRORS = '__inner_errors__';

export interface InnerContext {
  problems: (value: unknown) => [string, string][];
}

/** Marker of a required field whose absence also names fields inside it (see RequiredNaming). */
export const REQUIRED_NAMING = '__required_naming__';

export interface RequiredNamingContext {
  inner: string[];
}

function rule(name: string, check: Check, context?: ListContext | InnerContext): PropertyDecorator {
  const validate: PropertyDecorator = (target, propertyName) =>
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
  return check.schema ? applyDecorators(validate, ApiProperty(check.schema)) : validate;
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
const codePoints = (s: string) => (s.length > 0 && /[\uD800-\uDFFF]/.test(s) ? Array.from(s).length : s.length);

/** Absent and null are both "not given". */
export const Optional = () => applyDecorators(IsOptional(), ApiProperty({ required: false, nullable: true }));
/** Absent is "not given"; null is checked (and rejected) like any other value. */
export const OptionalNotNull = () =>
  applyDecorators(
    ValidateIf((_object: unknown, value: unknown) => value !== undefined),
    ApiProperty({ required: false }),
  );
export const Required = () => applyDecorators(IsDefined({ message: 'The :attribute field is required.' }), ApiProperty({ required: true }));
/**
 * Required; when absent, the error also names these fields inside it (`recipients` names
 * `recipients.user_ids`, the form most callers use: docs/api.md 10).
 */
export const RequiredNaming = (...inner: string[]) =>
  applyDecorators(IsDefined({ message: REQUIRED_NAMING, context: { inner } satisfies RequiredNamingContext }), ApiProperty({ required: true }));

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

/** One installation tag (docs/api.md 10): an installation's `tags` and a send's `recipients.tags` share it. */
export const TAG = checkString({
  min: 1,
  max: 64,
  pattern: /^[A-Za-z0-9_.:-]+$/,
  patternMessage: 'The :attribute field may contain only letters, digits, _ . : and -.',
});

export function checkInt({ min, max }: { min?: number; max?: number }): Check {
  return described(
    (value) => {
      if (typeof value !== 'number' || !Number.isSafeInteger(value)) return 'The :attribute field must be an integer.';
      if (min !== undefined && value < min) return `The :attribute field must be at least ${min}.`;
      if (max !== undefined && value > max) return `The :attribute field must not be greater than ${max}.`;
      return null;
    },
    { type: 'integer', ...(min !== undefined ? { minimum: min } : {}), ...(max !== undefined ? { maximum: max } : {}) },
  );
}

export const Int = (options: { min?: number; max?: number }) => rule('integer', checkInt(options));

/** An integer given as a number or, in a query string, as digits. */
export const IntLike = (options: { min?: number; max?: number }) => {
  const asInt = checkInt(options);
  return rule('integer', described((value) => asInt(typeof value === 'string' && /^\d{1,15}$/.test(value) ? Number(value) : value), asInt.schema!));
};

export function checkIn(values: readonly string[]): Check {
  return described((value) => (typeof value === 'string' && values.includes(value) ? null : 'The selected :attribute is invalid.'), {
    type: 'string',
    enum: [...values],
  });
}

export const In = (values: readonly string[]) => rule('in', checkIn(values));

/**
 * What HttpsUrl documents: an https URL with a DNS host name (its last label starts with a letter:
 * a numeric one makes the URL parser read an IPv4 address) and an RFC 3986 path. The check (WHATWG
 * URL parsing) accepts more; a client that keeps to the pattern is never refused.
 */
const HTTPS_URL_PATTERN = `^https://(?:[a-z0-9]+(?:-[a-z0-9]+)*\\.)*[a-z][a-z0-9]*(?:-[a-z0-9]+)*${URL_PATH_AND_QUERY}$`;

/** Instants the API accepts: from 2000-01-01T00:00:00Z (inclusive) to 2101-01-01T00:00:00Z (exclusive). */
export const INSTANT_MIN = Date.UTC(2000, 0, 1);
export const INSTANT_MAX = Date.UTC(2101, 0, 1);
const INSTANT = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.\d{1,6})?(?:Z|([+-])(\d{2}):(\d{2}))$/;

/**
 * The epoch milliseconds of an ISO 8601 date-time with `Z` or a `±hh:mm` offset that names a real
 * instant (no February 30th, no hour 24, no leap second, offsets within ±14:00, the real world's
 * range) between 2000 and 2100; null otherwise. Date.parse alone would roll 02-30 over to March
 * and accept years PostgreSQL or the response could not represent.
 */
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

/**
 * A date-time field (`occurred_at`, `send_at`): see parseInstant. With `maxDaysAhead`, also at
 * most that many days after the moment it is checked.
 */
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

/** `true`, the only value of a flag such as `recipients.all`. */
export const True = () =>
  rule(
    'true',
    described((value) => (value === true ? null : 'The :attribute field must be true.'), { type: 'boolean', enum: [true] }),
  );

/**
 * Exactly one of `keys` is given (present, whatever its value: a null one fails its own rule).
 * On the nested object's property, so the error is the object's own (`errors.recipients`).
 */
export const ExactlyOneOf = (keys: readonly string[], message: string) =>
  rule('exactlyOne', (value) => {
    if (!isPlainObject(value)) return null; // the object rule reports it
    return keys.filter((key) => value[key] !== undefined).length === 1 ? null : message;
  });

export function checkHttpsUrl(max: number): Check {
  const asString = checkString({ max });
  return described(
    (value) => {
      const problem = asString(value);
      if (problem) return problem;
      try {
        const url = new URL(value as string);
        if (url.protocol === 'https:' && url.hostname) return null;
      } catch {
        // fall through to the message
      }
      return 'The :attribute field must be an absolute https:// URL.';
    },
    { type: 'string', format: 'uri', maxLength: max, pattern: HTTPS_URL_PATTERN },
  );
}

export const HttpsUrl = (max: number) => rule('httpsUrl', checkHttpsUrl(max));

let configuredHosts: { setting: string | undefined; hosts: WebPushHosts } | undefined;

/**
 * The allow-list from WEB_PUSH_ALLOWED_HOSTS. Validation decorators live outside Nest's container,
 * so this reads the cached environment, as main.ts does.
 */
export function webPushHosts(): WebPushHosts {
  const setting = env().WEB_PUSH_ALLOWED_HOSTS;
  if (!configuredHosts || configuredHosts.setting !== setting) configuredHosts = { setting, hosts: WebPushHosts.fromSetting(setting) };
  return configuredHosts.hosts;
}

/** Object-level OpenAPI keywords of request classes, by class name (read by buildOpenApiDocument). */
export const CLASS_SCHEMAS = new Map<string, Record<string, unknown>>();

/**
 * Documents an object-level rule that the service checks (the check itself stays where it needs
 * state, e.g. "at least one field" in the service): `@DescribeObject({ minProperties: 1 })`.
 */
export const DescribeObject =
  (schema: Record<string, unknown>): ClassDecorator =>
  (target) => {
    CLASS_SCHEMAS.set(target.name, schema);
  };

/** Schema extension that buildOpenApiDocument replaces by the configured allow-list's pattern. */
export const WEB_PUSH_ENDPOINT_EXTENSION = 'x-web-push-endpoint';

/** A Web Push subscription endpoint: https, no credentials, a host on the allow-list (web-push-hosts.ts). */
export function WebPushEndpoint(max: number) {
  const asString = checkString({ max });
  return rule(
    'webPushEndpoint',
    described((value) => asString(value) ?? webPushHosts().endpointProblem(value as string), {
      type: 'string',
      format: 'uri',
      maxLength: max,
      // The allow-list is configuration, read when the document is built, not when this loads.
      [WEB_PUSH_ENDPOINT_EXTENSION]: true,
    } as ApiPropertyOptions),
  );
}

/** An absolute URL (https://...) or an app deep link (myapp://path). */
export const checkLinkUrl = (max: number) =>
  checkString({
    max,
    pattern: /^[A-Za-z][A-Za-z0-9+.-]*:\/\/\S+$/,
    patternMessage: 'The :attribute field must be an absolute URL or an app deep link (scheme://...).',
  });

export const LinkUrl = (max: number) => rule('linkUrl', checkLinkUrl(max));

/**
 * An object of free-form keys whose values are objects of known fields (`notification.localizations`):
 * at most `maxKeys` keys matching `key`, each value an object of `fields` only (`minFields` of them
 * at least), each field passing its check. Problems are reported at their own paths (INNER_ERRORS).
 */
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
        const problem = check ? check(entry[field]) : 'The :attribute field is not allowed.';
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

/** Metadata key: the properties of a DTO whose value is kept exactly as parsed (see PlainObject). */
export const VERBATIM_PROPERTIES = 'verbatimProperties';

/** The properties of `cls` declared with PlainObject. */
export function verbatimProperties(cls: object): string[] {
  return (Reflect.getMetadata(VERBATIM_PROPERTIES, cls) as string[] | undefined) ?? [];
}

/**
 * A free-form JSON object (a top-level body field), kept exactly as parsed: RequestValidationPipe
 * keeps it away from class-transformer and from Nest's removal of `__proto__` and `constructor`
 * keys, which would drop keys such as `constructor`, `toString` or `__proto__` (or fail on them).
 * JSON.parse makes `__proto__` an own key, never a prototype, so the parsed value is safe as it is.
 */
export function PlainObject(options?: Parameters<typeof checkObject>[0]): PropertyDecorator {
  return (target, key) => {
    rule('object', described(checkObject(options), { type: 'object', additionalProperties: true }))(target, key);
    Reflect.defineMetadata(VERBATIM_PROPERTIES, [...verbatimProperties(target.constructor), key], target.constructor);
  };
}

/** A nested object validated against `cls`; unknown keys inside it are rejected too. */
export function Nested(cls: () => new () => object): PropertyDecorator {
  return (target, key) => {
    // Registered before ValidateNested so the type error is reported first.
    rule('object', checkObject())(target, key);
    ValidateNested()(target, key);
    Type(cls)(target, key);
    // Written as `type: () => ...`: Swagger tells a lazy type from a class by that function name.
    ApiProperty({ type: () => cls() })(target, key);
  };
}

export function List({ min, max, item }: { min?: number; max?: number; item: Check }) {
  return rule(
    'list',
    described(
      (value) => {
        if (!Array.isArray(value)) return 'The :attribute field must be an array.';
        if (min !== undefined && value.length < min) return `The :attribute field must have at least ${plural(min, 'item')}.`;
        if (max !== undefined && value.length > max) return `The :attribute field must not have more than ${plural(max, 'item')}.`;
        return value.some((v) => item(v) !== null) ? ITEM_ERRORS : null;
      },
      {
        type: 'array',
        items: item.schema as object,
        ...(min !== undefined ? { minItems: min } : {}),
        ...(max !== undefined ? { maxItems: max } : {}),
      },
    ),
    { item },
  );
}

/** A base64url string that decodes to exactly `bytes` bytes (Web Push subscription keys). */
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
