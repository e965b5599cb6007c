import Ajv, { ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import fc from 'fast-check';

/**
 * The OpenAPI document as a test oracle: fast-check arbitraries generated from its request
 * schemas, and ajv validators of its response schemas. Only the subset of OpenAPI 3.0 our
 * schemas use is supported; anything else throws, so a new construct cannot be silently ignored.
 */

export type Schema = {
  $ref?: string;
  allOf?: Schema[];
  type?: string;
  nullable?: boolean;
  enum?: unknown[];
  pattern?: string;
  /** Only `{ pattern }`: what a string must not match (action_url's unsafe schemes). */
  not?: { pattern: string };
  format?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  items?: Schema;
  minItems?: number;
  maxItems?: number;
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean | Schema;
  minProperties?: number;
  maxProperties?: number;
  /** The keys of a map (OpenAPI 3.0 has no propertyNames): `notification.localizations`. */
  'x-key-pattern'?: string;
  /** A date-time at most this many days after now: `send_at`. */
  'x-max-days-ahead'?: number;
  /** The one value of an integer range that is refused: `options.badge_increment` 0. */
  'x-not'?: number;
  /** Keys never given together: `options.badge` and `options.badge_increment`. */
  'x-exclusive'?: string[][];
  /** A key that needs another: `options.web.renotify` needs `tag`. */
  'x-requires'?: Record<string, string>;
  /** A key allowed only when others have these values: an event's `action` with `type: opened`. */
  'x-only-when'?: Record<string, Record<string, unknown>>;
  /** A key required unless a dotted path is `true`: `notification` unless `options.content_available` or `options.widgets`. */
  'x-required-unless'?: Record<string, string | string[]>;
  /** A key absent when the dotted path is `true`: `notification` and `data` when `options.widgets`. */
  'x-prohibited-if'?: Record<string, string>;
  /** Any one of these: a property value (string, number or boolean). */
  oneOf?: Schema[];
  /** An expression whose rules JSON Schema cannot say (`recipients.filter`): its example stands for it. */
  'x-expression'?: string;
  example?: unknown;
};

const given = (o: Record<string, unknown>, key: string) => o[key] !== undefined;
const truthyAt = (o: Record<string, unknown>, path: string) =>
  path.split('.').reduce<unknown>((at, key) => (at && typeof at === 'object' ? (at as Record<string, unknown>)[key] : undefined), o) === true;

/** Whether an object keeps the object-level rules the x- extensions above document. */
function keepsObjectRules(s: Schema, o: Record<string, unknown>): boolean {
  if (s['x-exclusive']?.some((group) => group.filter((key) => given(o, key)).length > 1)) return false;
  if (Object.entries(s['x-requires'] ?? {}).some(([key, needed]) => given(o, key) && !given(o, needed))) return false;
  if (Object.entries(s['x-only-when'] ?? {}).some(([key, when]) => given(o, key) && Object.entries(when).some(([k, v]) => o[k] !== v))) return false;
  if (Object.entries(s['x-prohibited-if'] ?? {}).some(([key, path]) => o[key] !== undefined && o[key] !== null && truthyAt(o, path))) return false;
  return !Object.entries(s['x-required-unless'] ?? {}).some(
    ([key, paths]) => (o[key] === undefined || o[key] === null) && ![paths].flat().some((path) => truthyAt(o, path)),
  );
}
type Response = { content?: Record<string, { schema?: Schema }> };
type Operation = { responses: Record<string, Response>; parameters?: { name: string; in: string; required?: boolean; schema?: Schema }[] };
export type OpenApiDocument = { paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, Schema> } };

export interface GenerationLimits {
  /** Longest unpatterned string generated (payload limits across fields are documented in prose). */
  maxStringLength: number;
  /** Keys in a free-form object (`data`). */
  maxFreeKeys: number;
  /** Keys no free-form object may have (documented in the field's description). */
  reservedKeys: (key: string) => boolean;
}

const codePoints = (s: string) => Array.from(s).length;

export function arbitraryOf(doc: OpenApiDocument, schema: Schema, limits: GenerationLimits): fc.Arbitrary<unknown> {
  const resolve = (s: Schema): Schema => {
    if (s.$ref) return { ...resolve(doc.components.schemas[s.$ref.replace('#/components/schemas/', '')]), ...withoutKey(s, '$ref') };
    if (s.allOf) {
      if (s.allOf.length !== 1) throw new Error(`allOf with ${s.allOf.length} members is not supported`);
      return { ...resolve(s.allOf[0]), ...withoutKey(s, 'allOf') };
    }
    return s;
  };
  const build = (raw: Schema): fc.Arbitrary<unknown> => {
    const s = resolve(raw);
    const value = buildType(s);
    return s.nullable ? fc.oneof({ weight: 1, arbitrary: fc.constant(null) }, { weight: 4, arbitrary: value }) : value;
  };
  const buildType = (s: Schema): fc.Arbitrary<unknown> => {
    if (s.enum) return fc.constantFrom(...s.enum);
    if (s['x-expression']) return fc.constant(s.example);
    if (s.oneOf) return fc.oneof(...s.oneOf.map(build));
    switch (s.type) {
      case 'string': {
        const min = s.minLength ?? 0;
        const max = s.maxLength ?? Infinity;
        const fits = (text: string) => codePoints(text) >= min && codePoints(text) <= max;
        if (s.format === 'date-time') {
          // A margin of a minute: the service checks the bound when the request arrives, a little later.
          const max =
            s['x-max-days-ahead'] === undefined ? new Date('2099-12-31T23:59:59Z') : new Date(Date.now() + s['x-max-days-ahead'] * 86_400_000 - 60_000);
          return fc.date({ min: new Date('2000-01-01T00:00:00Z'), max, noInvalidDate: true }).map((d) => d.toISOString());
        }
        const excluded = s.not ? new RegExp(s.not.pattern, 'u') : null;
        if (s.pattern) return fc.stringMatching(new RegExp(s.pattern, 'u')).filter((text) => fits(text) && !excluded?.test(text));
        return (
          // One code point per unit, as the service counts lengths: with graphemes (several code
          // points each) a fixed length such as user_id_hash's 64 was almost never met by the filter.
          fc
            .string({ unit: 'binary', minLength: min, maxLength: Math.min(max, Math.max(min, limits.maxStringLength)) })
            // NUL is refused everywhere, as the document's description says (no per-field pattern).
            .filter((text) => fits(text) && !text.includes('\u0000'))
        );
      }
      case 'integer': {
        const integer = fc.integer({ min: s.minimum ?? -(2 ** 31), max: s.maximum ?? 2 ** 31 - 1 });
        return s['x-not'] === undefined ? integer : integer.filter((n) => n !== s['x-not']);
      }
      case 'number':
        return fc.double({ noNaN: true, noDefaultInfinity: true, min: s.minimum, max: s.maximum });
      case 'boolean':
        return fc.boolean();
      case 'array':
        if (!s.items) throw new Error('array without items');
        return fc.array(build(s.items), { minLength: s.minItems ?? 0, maxLength: Math.min(s.maxItems ?? 5, 5) });
      case 'object':
      case undefined: {
        if (s.properties) {
          const model = Object.fromEntries(Object.entries(s.properties).map(([key, property]) => [key, build(property)]));
          let record: fc.Arbitrary<Record<string, unknown>> = fc.record(model, { requiredKeys: (s.required ?? []) as never[] });
          // JSON Schema allows any other key unless additionalProperties says otherwise: so must the service.
          if (s.additionalProperties !== false) {
            const declared = new Set(Object.keys(s.properties));
            const extra = fc.dictionary(
              fc.stringMatching(/^[a-z][a-z0-9_]{0,15}$/).filter((k) => !declared.has(k)),
              fc.string({ maxLength: 10 }),
              { maxKeys: 2 },
            );
            record = fc.tuple(record, extra).map(([known, more]) => ({ ...more, ...known }));
          }
          return record.filter(
            (o) => Object.keys(o).length >= (s.minProperties ?? 0) && Object.keys(o).length <= (s.maxProperties ?? Infinity) && keepsObjectRules(s, o),
          );
        }
        if (typeof s.additionalProperties === 'object') {
          if (!s['x-key-pattern']) throw new Error(`a map without x-key-pattern: ${JSON.stringify(s)}`);
          const key = fc.stringMatching(new RegExp(s['x-key-pattern'], 'u'));
          return fc.dictionary(key, build(s.additionalProperties), { maxKeys: Math.min(s.maxProperties ?? 3, 3) });
        }
        if (s.additionalProperties === true) {
          const key = fc.stringMatching(/^[a-z][a-z0-9_]{0,15}$/).filter((k) => !limits.reservedKeys(k));
          const leaf = fc.oneof(fc.string({ maxLength: 20 }), fc.integer(), fc.boolean(), fc.constant(null));
          return fc.dictionary(key, leaf, { maxKeys: limits.maxFreeKeys });
        }
        throw new Error(`unsupported object schema ${JSON.stringify(s)}`);
      }
      default:
        throw new Error(`unsupported schema type ${s.type}`);
    }
  };
  return build(schema);
}

function withoutKey<T extends object>(value: T, key: keyof T): Partial<T> {
  const copy = { ...value };
  delete copy[key];
  return copy;
}

/** OpenAPI 3.0 `nullable` -> JSON Schema `anyOf [..., null]`, which ajv understands with $ref and allOf too. */
function toJsonSchema(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(toJsonSchema);
  if (value === null || typeof value !== 'object') return value;
  const entries = Object.entries(value).filter(([key]) => key !== 'example' && key !== 'examples');
  const converted = Object.fromEntries(entries.map(([key, item]) => [key, key === 'properties' ? mapValues(item, toJsonSchema) : toJsonSchema(item)]));
  if (converted.nullable === true) {
    delete converted.nullable;
    return { anyOf: [converted, { type: 'null' }] };
  }
  delete converted.nullable;
  return converted;
}

const mapValues = (value: unknown, fn: (item: unknown) => unknown) =>
  Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([key, item]) => [key, fn(item)]));

/**
 * `check(path, method, status, body)`: null when the operation documents `status` and the body
 * matches its schema (an empty body where none is documented), else what is wrong.
 */
export function responseChecker(doc: OpenApiDocument): (path: string, method: string, status: number, body: unknown, text: string) => string | null {
  const ajv = new Ajv({ strict: false, allErrors: false });
  addFormats(ajv);
  ajv.addSchema({ $id: 'doc', components: toJsonSchema(doc.components) });
  const cache = new Map<string, ValidateFunction>();
  return (path, method, status, body, text) => {
    const operation = doc.paths[path]?.[method];
    if (!operation) return `${method.toUpperCase()} ${path} is not documented`;
    const response = operation.responses[String(status)];
    if (!response) return `${method.toUpperCase()} ${path} does not document ${status}`;
    const schema = response.content?.['application/json']?.schema;
    if (!schema) return text === '' ? null : `${status} documents no body, got ${text.slice(0, 200)}`;
    const key = `${path} ${method} ${status}`;
    let validate = cache.get(key);
    if (!validate) {
      const json = JSON.stringify(toJsonSchema(schema)).replaceAll('"#/components/', '"doc#/components/');
      validate = ajv.compile(JSON.parse(json));
      cache.set(key, validate);
    }
    return validate(body) ? null : `${status} body does not match the document: ${ajv.errorsText(validate.errors)} in ${text.slice(0, 300)}`;
  };
}
