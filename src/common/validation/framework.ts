import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptions } from '@nestjs/swagger';
import { IsDefined, IsOptional, registerDecorator, ValidateIf, ValidationArguments } from 'class-validator';

/**
 * Validation rules that produce the API's messages ("The notification.title field is
 * required."). A rule returns a message template with `:attribute`, which the validation pipe
 * replaces by the dotted request path, or null when the value passes. One decorator per field
 * type keeps a single, predictable message per field (the pipe stops at a field's first error).
 *
 * Each rule also describes itself to OpenAPI (type, bounds, pattern, enum), so a bound is written
 * once, in the rule, and the document cannot say something else than the check. A field's own
 * @ApiProperty adds only prose: description and example.
 *
 * This file is the framework (a check made a decorator, presence, the pipe's markers); the
 * generic rules are in rules.ts, the API's own (tags, URLs, Web Push) in domain-rules.ts.
 */
export type Check = ((value: unknown) => string | null) & { schema?: ApiPropertyOptions };

/** A check with the OpenAPI schema of what it accepts. */
export const described = (check: (value: unknown) => string | null, schema: ApiPropertyOptions): Check => Object.assign(check, { schema });

/** The message of a field the request may not have (at every level: docs/api.md#conventions). */
export const NOT_ALLOWED = 'The :attribute field is not allowed.';

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

export function rule(name: string, check: Check, context?: ListContext | InnerContext): PropertyDecorator {
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

/** A check that also reads the object holding the field (see WithSiblings in rules.ts). */
export function siblingRule(name: string, problem: (value: unknown, object: Record<string, unknown>) => string | null): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name,
      target: target.constructor,
      propertyName: propertyName as string,
      validator: {
        validate: (value: unknown, args?: ValidationArguments) => problem(value, (args?.object ?? {}) as Record<string, unknown>) === null,
        defaultMessage: (args?: ValidationArguments) => problem(args?.value, (args?.object ?? {}) as Record<string, unknown>) ?? '',
      },
    });
}

export const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** Absent and null are both "not given". */
export const Optional = () => applyDecorators(IsOptional(), ApiProperty({ required: false, nullable: true }));
/** Absent is "not given"; null is checked (and rejected) like any other value. */
export const OptionalNotNull = () =>
  applyDecorators(
    ValidateIf((_object: unknown, value: unknown) => value !== undefined),
    ApiProperty({ required: false }),
  );
export const Required = () => applyDecorators(IsDefined({ message: 'The :attribute field is required.' }), ApiProperty({ required: true }));
/** Required unless `given(body)`; then absent and null are both "not given". */
export const RequiredUnless = <T extends object>(given: (body: T) => boolean, message: string) =>
  applyDecorators(
    ValidateIf((body: T, value: unknown) => (value !== undefined && value !== null) || !given(body)),
    IsDefined({ message }),
    ApiProperty({ required: false }),
  );
/**
 * Required; when absent, the error also names these fields inside it (`recipients` names
 * `recipients.user_ids`, the form most callers use: docs/api.md#recipients).
 */
export const RequiredNaming = (...inner: string[]) =>
  applyDecorators(IsDefined({ message: REQUIRED_NAMING, context: { inner } satisfies RequiredNamingContext }), ApiProperty({ required: true }));

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

/** Metadata key: the properties of a DTO whose value is kept exactly as parsed (see PlainObject). */
export const VERBATIM_PROPERTIES = 'verbatimProperties';

/** The properties of `cls` declared with PlainObject. */
export function verbatimProperties(cls: object): string[] {
  return (Reflect.getMetadata(VERBATIM_PROPERTIES, cls) as string[] | undefined) ?? [];
}

/** Marks `key` of `target`'s class as kept exactly as parsed (PlainObject, Properties). */
export function markVerbatim(target: object, key: string | symbol): void {
  Reflect.defineMetadata(VERBATIM_PROPERTIES, [...verbatimProperties(target.constructor), key], target.constructor);
}

export const isPlainObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Metadata key: a DTO's list fields with their bound, and its nested DTOs (see oversizedLists). */
const LIST_BOUNDS = 'listBounds';
const NESTED_CLASSES = 'nestedClasses';

interface ListBound {
  max: number;
  /** The list rule itself: on a list over `max` it answers with the bound, before any item. */
  check: Check;
}

/** Records the bound of a list field, so oversizedLists can refuse it before anything walks it. */
export function recordListBound(cls: object, key: string | symbol, bound: ListBound): void {
  const bounds = new Map<string | symbol, ListBound>(Reflect.getMetadata(LIST_BOUNDS, cls) as Map<string | symbol, ListBound> | undefined);
  Reflect.defineMetadata(LIST_BOUNDS, bounds.set(key, bound), cls);
}

/** Records the DTO of a nested object field (see Nested). */
export function recordNestedClass(cls: object, key: string | symbol, nested: () => new () => object): void {
  const classes = new Map<string | symbol, () => new () => object>(
    Reflect.getMetadata(NESTED_CLASSES, cls) as Map<string | symbol, () => new () => object> | undefined,
  );
  Reflect.defineMetadata(NESTED_CLASSES, classes.set(key, nested), cls);
}

/**
 * The list fields of `value` (a body for DTO `cls`, and the nested objects its DTO names) that are
 * longer than their documented maximum, as [path, message]. It reads each list's length only, so a
 * body with 200,000 tags is refused before any walk, copy or check visits its items.
 */
export function oversizedLists(value: unknown, cls: object, path = ''): [string, string][] {
  if (!isPlainObject(value)) return [];
  const found: [string, string][] = [];
  const bounds = Reflect.getMetadata(LIST_BOUNDS, cls) as Map<string, ListBound> | undefined;
  for (const [key, { max, check }] of bounds ?? []) {
    const list = Object.hasOwn(value, key) ? value[key] : undefined;
    if (Array.isArray(list) && list.length > max) found.push([path ? `${path}.${key}` : key, check(list)!]);
  }
  const nested = Reflect.getMetadata(NESTED_CLASSES, cls) as Map<string, () => new () => object> | undefined;
  for (const [key, nestedClass] of nested ?? []) {
    if (Object.hasOwn(value, key)) found.push(...oversizedLists(value[key], nestedClass(), path ? `${path}.${key}` : key));
  }
  return found;
}
