import { FILTER_OPS_BY_FIELD, type FilterField, type FilterOp } from '../../vocabulary';

/** One row of the condition builder: a field (`properties` with its key), an op and the value as typed. */
export interface ConditionRow {
  field: FilterField;
  key: string;
  op: FilterOp;
  value: string;
}

export type Combinator = 'and' | 'or';

/** A filter node as the API takes it (docs/api.md#audience-filters). */
export type FilterNode = { and: FilterNode[] } | { or: FilterNode[] } | { field: string; op: string; value?: unknown };

export const FIELDS = Object.keys(FILTER_OPS_BY_FIELD) as FilterField[];
export const opsOf = (field: FilterField): readonly FilterOp[] => FILTER_OPS_BY_FIELD[field];
export const takesNoValue = (op: FilterOp) => op === 'exists' || op === 'not_exists';
export const takesList = (op: FilterOp) => op === 'in' || op === 'not_in';

export const newRow = (field: FilterField = 'platform'): ConditionRow => ({ field, key: '', op: opsOf(field)[0], value: '' });

/** A property's value as typed: numbers and true/false keep their type, anything else is text. */
function propertyValue(text: string): string | number | boolean {
  const trimmed = text.trim();
  if (trimmed === 'true' || trimmed === 'false') return trimmed === 'true';
  if (/^-?\d+(\.\d+)?$/.test(trimmed)) return Number(trimmed);
  return text;
}

/** The API's condition for a row; a list op takes comma-separated values. */
export function conditionOf(row: ConditionRow): FilterNode {
  const field = row.field === 'properties' ? `properties.${row.key.trim()}` : row.field;
  if (takesNoValue(row.op)) return { field, op: row.op };
  const one = (text: string) => (row.field === 'properties' ? propertyValue(text) : text.trim());
  const value = takesList(row.op)
    ? row.value
        .split(',')
        .map((part) => part.trim())
        .filter((part) => part !== '')
        .map(one)
    : one(row.value);
  return { field, op: row.op, value };
}

/** The rows joined by and/or; null without a row (every installation). */
export function filterOf(rows: ConditionRow[], combinator: Combinator): FilterNode | null {
  if (rows.length === 0) return null;
  if (rows.length === 1) return conditionOf(rows[0]);
  return combinator === 'and' ? { and: rows.map(conditionOf) } : { or: rows.map(conditionOf) };
}
