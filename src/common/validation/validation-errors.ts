import { ValidationError } from 'class-validator';
import { isPlainObject, ITEM_ERRORS, ListContext } from './rules';

export type ErrorBag = Record<string, string[]>;

function add(bag: ErrorBag, path: string, template: string): void {
  const message = template.replaceAll(':attribute', path);
  const list = (bag[path] ??= []);
  if (!list.includes(message)) list.push(message);
}

/** class-validator's tree of errors as the contract's `errors` object (dotted request paths). */
export function toErrorBag(errors: ValidationError[], parent = '', bag: ErrorBag = {}): ErrorBag {
  for (const error of errors) {
    const path = parent ? `${parent}.${error.property}` : error.property;
    for (const [name, template] of Object.entries(error.constraints ?? {})) {
      if (name === 'whitelistValidation') {
        add(bag, path, 'The :attribute field is not allowed.');
      } else if (name === 'nestedValidation') {
        add(bag, path, 'The :attribute field must be an object.');
      } else if (template === ITEM_ERRORS) {
        const { item } = error.contexts?.[name] as ListContext;
        (error.value as unknown[]).forEach((value, index) => {
          const problem = item(value);
          if (problem) add(bag, `${path}.${index}`, problem);
        });
      } else {
        add(bag, path, template);
      }
    }
    if (error.children?.length) toErrorBag(error.children, path, bag);
  }
  return bag;
}

/**
 * PostgreSQL cannot store U+0000 in text or jsonb, so a NUL anywhere in a request (keys included)
 * is a validation failure at that path instead of a driver error.
 */
export function nulErrors(value: unknown, path = '', bag: ErrorBag = {}): ErrorBag {
  if (typeof value === 'string') {
    if (value.includes('\u0000')) add(bag, path || 'body', 'The :attribute field must not contain NUL characters.');
  } else if (Array.isArray(value)) {
    value.forEach((item, index) => nulErrors(item, path ? `${path}.${index}` : String(index), bag));
  } else if (isPlainObject(value)) {
    for (const [key, item] of Object.entries(value)) {
      const itemPath = path ? `${path}.${key}` : key;
      if (key.includes('\u0000')) add(bag, itemPath, 'The :attribute field name must not contain NUL characters.');
      nulErrors(item, itemPath, bag);
    }
  }
  return bag;
}

export function mergeBags(...bags: ErrorBag[]): ErrorBag {
  const out: ErrorBag = {};
  for (const bag of bags) for (const [path, messages] of Object.entries(bag)) for (const m of messages) add(out, path, m);
  return out;
}
