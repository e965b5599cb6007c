import { FILTER_OPS_BY_FIELD, PERMISSIONS, PLATFORMS, type FilterField, type FilterOp } from '../../vocabulary';

/** How a property's typed value is read: `auto` keeps numbers and true/false, the others force a type. */
export type PropertyType = 'auto' | 'text' | 'number' | 'boolean';

/**
 * One row of the condition builder: a field (`properties` with its key), an op and the value as
 * typed; `values` the choices ticked for a list op on a field with few values (platform, permission).
 */
export interface ConditionRow {
  field: FilterField;
  key: string;
  op: FilterOp;
  value: string;
  values?: string[];
  type?: PropertyType;
}

export type Combinator = 'and' | 'or';

/** A filter node as the API takes it (docs/api.md#audience-filters). */
export type FilterNode = { and: FilterNode[] } | { or: FilterNode[] } | { not: FilterNode } | { field: string; op: string; value?: unknown };

export const FIELDS = Object.keys(FILTER_OPS_BY_FIELD) as FilterField[];
export const opsOf = (field: FilterField): readonly FilterOp[] => FILTER_OPS_BY_FIELD[field];
export const takesNoValue = (op: FilterOp) => op === 'exists' || op === 'not_exists';
export const takesList = (op: FilterOp) => op === 'in' || op === 'not_in';
export const takesDuration = (op: FilterOp) => op === 'within_last' || op === 'not_within_last';
/** The values a field can have, when there are few: a choice, not a text field. */
export const CHOICES: Partial<Record<FilterField, readonly string[]>> = { platform: PLATFORMS, permission: PERMISSIONS };
export const isTimeField = (field: FilterField) => field === 'last_seen_at' || field === 'registered_at';

export const newRow = (field: FilterField = 'platform'): ConditionRow => ({ field, key: '', op: opsOf(field)[0], value: '' });

/** A property's value as typed: numbers and true/false keep their type (or the type chosen), anything else is text. */
function propertyValue(text: string, type: PropertyType = 'auto'): string | number | boolean {
  const trimmed = text.trim();
  if (type === 'text') return text;
  if (type === 'number') return trimmed === '' ? Number.NaN : Number(trimmed);
  if (type === 'boolean') return trimmed === 'true';
  if (trimmed === 'true' || trimmed === 'false') return trimmed === 'true';
  if (/^-?\d+(\.\d+)?$/.test(trimmed)) return Number(trimmed);
  return text;
}

/** A time typed in a datetime-local field (the viewer's wall clock) as the instant the API takes; other text as it is. */
function timeValue(text: string): string {
  const trimmed = text.trim();
  return /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$/.test(trimmed) ? new Date(trimmed).toISOString() : trimmed;
}

/** The API's condition for a row; a list op takes the ticked choices, or comma-separated values. */
export function conditionOf(row: ConditionRow): FilterNode {
  const field = row.field === 'properties' ? `properties.${row.key.trim()}` : row.field;
  if (takesNoValue(row.op)) return { field, op: row.op };
  const one = (text: string) =>
    row.field === 'properties' ? propertyValue(text, row.type) : isTimeField(row.field) && !takesDuration(row.op) ? timeValue(text) : text.trim();
  if (takesList(row.op) && CHOICES[row.field] && row.values) return { field, op: row.op, value: row.values };
  const value = takesList(row.op)
    ? row.value
        .split(',')
        .map((part) => part.trim())
        .filter((part) => part !== '')
        .map(one)
    : one(row.value);
  return { field, op: row.op, value };
}

/** Whether a row says all it needs: a property's name, a value, or at least one choice ticked. */
export function complete(row: ConditionRow): boolean {
  if (row.field === 'properties' && !row.key.trim()) return false;
  if (takesNoValue(row.op)) return true;
  if (takesList(row.op) && CHOICES[row.field]) return (row.values ?? []).length > 0;
  if (takesDuration(row.op)) return /^\d+[mhd]$/.test(row.value);
  return row.value.trim() !== '';
}

/** The rows joined by and/or; null without a row (every installation). */
export function filterOf(rows: ConditionRow[], combinator: Combinator): FilterNode | null {
  if (rows.length === 0) return null;
  if (rows.length === 1) return conditionOf(rows[0]);
  return combinator === 'and' ? { and: rows.map(conditionOf) } : { or: rows.map(conditionOf) };
}

/** The row of an API condition; null when the builder's controls cannot show it. */
function rowOf(node: unknown): ConditionRow | null {
  if (typeof node !== 'object' || node === null) return null;
  const { field, op, value } = node as { field?: unknown; op?: unknown; value?: unknown };
  if (typeof field !== 'string' || typeof op !== 'string') return null;
  const name = (field.startsWith('properties.') ? 'properties' : field) as FilterField;
  if (!FIELDS.includes(name) || !opsOf(name).includes(op as FilterOp)) return null;
  const row: ConditionRow = { field: name, key: name === 'properties' ? field.slice('properties.'.length) : '', op: op as FilterOp, value: '' };
  if (takesNoValue(row.op)) return value === undefined ? row : null;
  const list = takesList(row.op);
  if (list !== Array.isArray(value)) return null;
  const parts = (list ? value : [value]) as unknown[];
  if (!parts.every((part) => ['string', 'number', 'boolean'].includes(typeof part))) return null;
  if (name === 'properties') {
    const types = new Set(parts.map((part) => typeof part));
    // Text that reads as a number or true/false would change type on the way back: say it is text.
    const ambiguous = parts.some((part) => typeof part === 'string' && typeof propertyValue(part) !== 'string');
    row.type = types.size === 1 && types.has('string') && ambiguous ? 'text' : types.size === 1 && types.has('boolean') ? 'boolean' : 'auto';
  } else if (parts.some((part) => typeof part !== 'string')) return null;
  if (list && CHOICES[name]) row.values = parts as string[];
  row.value = parts.map(String).join(', ');
  return row;
}

/** The builder's rows of a filter: one condition, or conditions joined by one and/or; null for any other shape (JSON only). */
export function rowsOf(filter: unknown): { rows: ConditionRow[]; combinator: Combinator } | null {
  if (typeof filter !== 'object' || filter === null) return null;
  const joined = 'and' in filter ? { combinator: 'and' as const, nodes: filter.and } : 'or' in filter ? { combinator: 'or' as const, nodes: filter.or } : null;
  if (!joined) {
    const row = rowOf(filter);
    return row ? { rows: [row], combinator: 'and' } : null;
  }
  if (Object.keys(filter).length !== 1 || !Array.isArray(joined.nodes)) return null;
  const rows = joined.nodes.map(rowOf);
  return rows.every((row) => row !== null) ? { rows, combinator: joined.combinator } : null;
}
