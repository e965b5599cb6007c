import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptions } from '@nestjs/swagger';
import { IsDefined, IsOptional, registerDecorator, ValidateIf, ValidationArguments } from 'class-validator';

/**
 * Rules give the API's messages (`:attribute` replaced by the request path) and describe themselves to OpenAPI,
 * so a bound is written once; generic rules are in rules.ts, the API's own in domain-rules.ts.
 */
export type Check = ((value: unknown) => string | null) & { schema?: ApiPropertyOptions };

export const described = (check: (value: unknown) => string | null, schema: ApiPropertyOptions): Check => Object.assign(check, { schema });

/** A field the request may not have, at every level (docs/api.md#conventions). */
export const NOT_ALLOWED = 'The :attribute field is not allowed.';

export const ITEM_ERRORS = '__item_errors__';

export interface ListContext {
  item: Check;
}

/** Marker: the problems are inside the value, each reported at its own path from the rule's `problems`. */
export const INNER_ERRORS = '__inner_errors__';

export interface InnerContext {
  problems: (value: unknown) => [string, string][];
}

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

export const Optional = () => applyDecorators(IsOptional(), ApiProperty({ required: false, nullable: true }));
export const OptionalNotNull = () =>
  applyDecorators(
    ValidateIf((_object: unknown, value: unknown) => value !== undefined),
    ApiProperty({ required: false }),
  );
export const Required = () => applyDecorators(IsDefined({ message: 'The :attribute field is required.' }), ApiProperty({ required: true }));
export const RequiredUnless = <T extends object>(given: (body: T) => boolean, message: string) =>
  applyDecorators(
    ValidateIf((body: T, value: unknown) => (value !== undefined && value !== null) || !given(body)),
    IsDefined({ message }),
    ApiProperty({ required: false }),
  );
/** Required; when absent the error also names `inner` (`recipients.user_ids`: docs/api.md#recipients). */
export const RequiredNaming = (...inner: string[]) =>
  applyDecorators(IsDefined({ message: REQUIRED_NAMING, context: { inner } satisfies RequiredNamingContext }), ApiProperty({ required: true }));

export const CLASS_SCHEMAS = new Map<string, Record<string, unknown>>();

/** Documents an object-level rule checked elsewhere (`minProperties: 1`). */
export const DescribeObject =
  (schema: Record<string, unknown>): ClassDecorator =>
  (target) => {
    CLASS_SCHEMAS.set(target.name, schema);
  };

export const VERBATIM_PROPERTIES = 'verbatimProperties';

export function verbatimProperties(cls: object): string[] {
  return (Reflect.getMetadata(VERBATIM_PROPERTIES, cls) as string[] | undefined) ?? [];
}

export function markVerbatim(target: object, key: string | symbol): void {
  Reflect.defineMetadata(VERBATIM_PROPERTIES, [...verbatimProperties(target.constructor), key], target.constructor);
}

export const isPlainObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

const LIST_BOUNDS = 'listBounds';
const NESTED_CLASSES = 'nestedClasses';

interface ListBound {
  max: number;
  check: Check;
}

export function recordListBound(cls: object, key: string | symbol, bound: ListBound): void {
  const bounds = new Map<string | symbol, ListBound>(Reflect.getMetadata(LIST_BOUNDS, cls) as Map<string | symbol, ListBound> | undefined);
  Reflect.defineMetadata(LIST_BOUNDS, bounds.set(key, bound), cls);
}

export function recordNestedClass(cls: object, key: string | symbol, nested: () => new () => object): void {
  const classes = new Map<string | symbol, () => new () => object>(
    Reflect.getMetadata(NESTED_CLASSES, cls) as Map<string | symbol, () => new () => object> | undefined,
  );
  Reflect.defineMetadata(NESTED_CLASSES, classes.set(key, nested), cls);
}

/** List fields over their maximum, as [path, message], by length only: 200,000 tags are refused before any walk. */
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
