import { ValidationError } from 'class-validator';
import { INNER_ERRORS, InnerContext, ITEM_ERRORS, ListContext, NOT_ALLOWED, REQUIRED_NAMING, RequiredNamingContext } from './framework';

export type ErrorBag = Record<string, string[]>;

/** A bag without a prototype: paths like `__proto__` are plain keys. */
export function newBag(): ErrorBag {
  return Object.create(null) as ErrorBag;
}

function add(bag: ErrorBag, path: string, template: string): void {
  const message = template.replaceAll(':attribute', path);
  const list = Object.hasOwn(bag, path) ? bag[path] : (bag[path] = []);
  if (!list.includes(message)) list.push(message);
}

export function bagOf(problems: [string, string][]): ErrorBag {
  const bag = newBag();
  for (const [path, template] of problems) add(bag, path, template);
  return bag;
}

export function toErrorBag(errors: ValidationError[], parent = '', bag: ErrorBag = newBag()): ErrorBag {
  for (const error of errors) {
    const path = parent ? `${parent}.${error.property}` : error.property;
    for (const [name, template] of Object.entries(error.constraints ?? {})) {
      if (name === 'whitelistValidation') {
        add(bag, path, NOT_ALLOWED);
      } else if (name === 'nestedValidation') {
        add(bag, path, 'The :attribute field must be an object.');
      } else if (template === ITEM_ERRORS) {
        const { item } = error.contexts?.[name] as ListContext;
        (error.value as unknown[]).forEach((value, index) => {
          const problem = item(value);
          if (problem) add(bag, `${path}.${index}`, problem);
        });
      } else if (template === INNER_ERRORS) {
        const { problems } = error.contexts?.[name] as InnerContext;
        for (const [inner, problem] of problems(error.value)) add(bag, `${path}.${inner}`, problem);
      } else if (template === REQUIRED_NAMING) {
        add(bag, path, 'The :attribute field is required.');
        for (const inner of (error.contexts?.[name] as RequiredNamingContext).inner) add(bag, `${path}.${inner}`, 'The :attribute field is required.');
      } else {
        add(bag, path, template);
      }
    }
    if (error.children?.length) toErrorBag(error.children, path, bag);
  }
  return bag;
}

/** Nesting refused before any recursion (which overflows at a few thousand levels); the body is level 0. */
export const MAX_NESTING = 32;

/** Keys per object and per request: class-transformer's cost grows faster than linearly (60,000 keys held the loop for seconds). */
export const MAX_KEYS_PER_OBJECT = 1_000;
export const MAX_KEYS_TOTAL = 10_000;

/** Array items per request, bounding free-form lists (`data`); `user_ids` alone may hold 10,000. */
export const MAX_ARRAY_ITEMS_TOTAL = 20_000;

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function unstorable(text: string): string | null {
  if (text.includes('\u0000')) return 'NUL characters';
  if (LONE_SURROGATE.test(text)) return 'unpaired surrogate characters';
  return null;
}

const UNSAFE_INTEGER = `The :attribute field must be an integer from ${Number.MIN_SAFE_INTEGER} to ${Number.MAX_SAFE_INTEGER} (a larger one would lose digits).`;

export interface RequestShapeProblems {
  errors: ErrorBag;
  tooDeep: boolean;
  tooManyKeys: boolean;
  /** An own key `__proto__`, `prototype` or `constructor` (which Nest's pipe strips). */
  prototypeKeys: boolean;
}

const PROTOTYPE_KEYS = new Set(['__proto__', 'prototype', 'constructor']);

/** One iterative walk over a body or query: unstorable text, unsafe integers, nesting, key counts, each at its path; stops at the first key bound. */
export function requestShapeProblems(value: unknown): RequestShapeProblems {
  const errors = newBag();
  let tooDeep = false;
  let keys = 0;
  let items = 0;
  let prototypeKeys = false;
  const stack: { value: unknown; path: string; depth: number }[] = [{ value, path: '', depth: 0 }];
  while (stack.length > 0) {
    const { value: item, path, depth } = stack.pop()!;
    if (typeof item === 'string') {
      const problem = unstorable(item);
      if (problem) add(errors, path || 'body', `The :attribute field must not contain ${problem}.`);
      continue;
    }
    // JSON.parse already rounded it (9007199254740993 became ...992): refused rather than stored changed.
    if (typeof item === 'number' && Number.isInteger(item) && !Number.isSafeInteger(item)) {
      add(errors, path || 'body', UNSAFE_INTEGER);
      continue;
    }
    if (typeof item !== 'object' || item === null) continue;
    if (depth > MAX_NESTING) {
      add(errors, path.split('.')[0], `The :attribute field must not nest objects or arrays more than ${MAX_NESTING} levels deep.`);
      tooDeep = true;
      continue;
    }
    if (Array.isArray(item)) {
      items += item.length;
      if (items > MAX_ARRAY_ITEMS_TOTAL) {
        add(errors, 'body', `The request body must not have more than ${MAX_ARRAY_ITEMS_TOTAL.toLocaleString('en')} array items in all (arrays at any depth).`);
        return { errors, tooDeep, tooManyKeys: true, prototypeKeys };
      }
    } else {
      const count = Object.keys(item).length;
      keys += count;
      if (count > MAX_KEYS_PER_OBJECT) {
        add(errors, path || 'body', `The :attribute field must not have more than ${MAX_KEYS_PER_OBJECT} keys.`);
        return { errors, tooDeep, tooManyKeys: true, prototypeKeys };
      }
      if (keys > MAX_KEYS_TOTAL) {
        add(errors, 'body', `The request body must not have more than ${MAX_KEYS_TOTAL} keys in all (objects at any depth).`);
        return { errors, tooDeep, tooManyKeys: true, prototypeKeys };
      }
    }
    const children: { value: unknown; path: string; depth: number }[] = [];
    const entries: [string, unknown][] = Array.isArray(item) ? item.map((v, i) => [String(i), v]) : Object.entries(item);
    for (const [key, child] of entries) {
      const childPath = path ? `${path}.${key}` : key;
      const problem = Array.isArray(item) ? null : unstorable(key);
      if (PROTOTYPE_KEYS.has(key)) prototypeKeys = true;
      if (problem) add(errors, childPath, `The :attribute field name must not contain ${problem}.`);
      children.push({ value: child, path: childPath, depth: depth + 1 });
    }
    // Reversed onto the stack so errors come out in document order.
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]);
  }
  return { errors, tooDeep, tooManyKeys: false, prototypeKeys };
}

export function mergeBags(...bags: ErrorBag[]): ErrorBag {
  const out = newBag();
  for (const bag of bags) for (const [path, messages] of Object.entries(bag)) for (const m of messages) add(out, path, m);
  return out;
}
