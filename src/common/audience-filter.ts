import type { ApiPropertyOptions } from '@nestjs/swagger';
import { PLATFORMS } from './platform';
import { PERMISSIONS } from './vocabulary';
import { PROPERTY_KEY, PROPERTY_STRING_MAX, PropertyValue, TAG } from './validation/domain-rules';
import { described, INNER_ERRORS, isPlainObject, NOT_ALLOWED, plural, rule } from './validation/framework';
import { checkInstant, checkString } from './validation/rules';

/**
 * The audience filter language (docs/api.md#audience-filters): `recipients.filter` of a send and of
 * `POST /api/v1/audiences/count`. This file says what a valid filter is, and where each problem
 * is (paths relative to the filter, `and.1.op`); audience-sql.ts compiles a valid one to SQL.
 */

export const FILTER_OPS = ['eq', 'ne', 'lt', 'lte', 'gt', 'gte', 'in', 'not_in', 'exists', 'not_exists', 'contains', 'within_last', 'not_within_last'] as const;
export type FilterOp = (typeof FILTER_OPS)[number];

/** The fields besides `properties.<key>`. */
export const FILTER_FIELDS = ['tags', 'platform', 'permission', 'language', 'app_version', 'user_id', 'last_seen_at', 'registered_at'] as const;
export type FilterField = (typeof FILTER_FIELDS)[number] | `properties.${string}`;

/** `cost`: the most a filter may cost (FILTER_COSTS), about 1.6 ms of one core per 1,000 installations checked. */
export const FILTER_LIMITS = { children: 20, depth: 5, conditions: 50, values: 100, cost: 200 } as const;

/**
 * What checking a condition on one installation costs, in units of about 8 ns of one core
 * (docs/api.md#audience-filters "Cost", measured by bench/tools/filter-costs.ts): a column is
 * compared, a property read from `properties`, a language or version key computed from `device`;
 * a list adds a unit per LIST_UNIT values. A filter costs the sum of its conditions' costs.
 */
export const FILTER_COSTS: Record<FieldType, number> = {
  platform: 1,
  permission: 1,
  text: 1,
  instant: 1,
  tags: 1,
  property: 15,
  language: 22,
  version: 75,
};
const LIST_UNIT = 50;

export type FilterValue = PropertyValue | PropertyValue[];

export interface FilterCondition {
  field: FilterField;
  op: FilterOp;
  value?: FilterValue;
}
export type FilterNode = { and: FilterNode[] } | { or: FilterNode[] } | { not: FilterNode } | FilterCondition;

/** `"<n>m|h|d"`, n from 1 to 99999. */
export const DURATION = /^([1-9][0-9]{0,4})([mhd])$/;
const DURATION_MS = { m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
export const durationMs = (value: string): number => {
  const [, n, unit] = DURATION.exec(value)!;
  return Number(n) * DURATION_MS[unit as keyof typeof DURATION_MS];
};

/** A dotted version of numbers (`4.2`, `10.0.1`): what app_version is compared with. */
export const VERSION = /^[0-9]{1,9}(\.[0-9]{1,9}){0,9}$/;
/** The language of device.locale: its primary subtag. */
const LANGUAGE = /^[A-Za-z]{1,8}$/;

/** What a field holds, which decides the ops and values a condition on it may use. */
export type FieldType = 'property' | 'tags' | 'platform' | 'permission' | 'text' | 'language' | 'version' | 'instant';

export const fieldType = (field: string): FieldType | null => {
  if (field.startsWith('properties.')) return 'property';
  switch (field) {
    case 'tags':
      return 'tags';
    case 'platform':
      return 'platform';
    case 'permission':
      return 'permission';
    case 'language':
      return 'language';
    case 'user_id':
      return 'text';
    case 'app_version':
      return 'version';
    case 'last_seen_at':
    case 'registered_at':
      return 'instant';
    default:
      return null;
  }
};

const EQUALITY: FilterOp[] = ['eq', 'ne', 'in', 'not_in'];
const ORDER: FilterOp[] = ['lt', 'lte', 'gt', 'gte'];
const PRESENCE: FilterOp[] = ['exists', 'not_exists'];

/** The ops each type of field takes. */
export const OPS_BY_TYPE: Record<FieldType, readonly FilterOp[]> = {
  property: [...EQUALITY, ...ORDER, ...PRESENCE],
  tags: ['contains', ...PRESENCE],
  platform: EQUALITY,
  permission: EQUALITY,
  text: [...EQUALITY, ...PRESENCE],
  language: [...EQUALITY, ...PRESENCE],
  version: ['eq', 'ne', ...ORDER, ...PRESENCE],
  instant: [...ORDER, 'within_last', 'not_within_last'],
};

/** The ops of each field, `properties` standing for every `properties.<key>` (the dashboard's condition builder). */
export const OPS_BY_FIELD = {
  properties: OPS_BY_TYPE.property,
  ...Object.fromEntries(FILTER_FIELDS.map((field) => [field, OPS_BY_TYPE[fieldType(field)!]])),
} as Record<'properties' | (typeof FILTER_FIELDS)[number], readonly FilterOp[]>;

const checkTag = TAG;
const checkText = checkString({ min: 1, max: 255 });
const checkInstantValue = checkInstant();
const checkPropertyString = checkString({ max: PROPERTY_STRING_MAX });

/** The problem of one value (not a list) for a field type and op, or null. */
function scalarProblem(type: FieldType, op: FilterOp, value: unknown): string | null {
  if (op === 'within_last' || op === 'not_within_last') {
    return typeof value === 'string' && DURATION.test(value) ? null : 'The :attribute field must be a duration: 1 to 99999 followed by m, h or d (e.g. "7d").';
  }
  switch (type) {
    case 'property':
      if (ORDER.includes(op)) {
        if (typeof value === 'number' && Number.isFinite(value)) return null;
        return typeof value === 'string' ? checkPropertyString(value) : `The :attribute field must be a number or a string when op is ${op}.`;
      }
      if (typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value))) return null;
      return typeof value === 'string' ? checkPropertyString(value) : 'The :attribute field must be a string, a number or a boolean.';
    case 'tags':
      return checkTag(value);
    case 'platform':
      return typeof value === 'string' && (PLATFORMS as readonly string[]).includes(value)
        ? null
        : `The :attribute field must be one of ${PLATFORMS.join(', ')}.`;
    case 'permission':
      return typeof value === 'string' && (PERMISSIONS as readonly string[]).includes(value)
        ? null
        : `The :attribute field must be one of ${PERMISSIONS.join(', ')}.`;
    case 'text':
      return checkText(value);
    case 'language':
      return typeof value === 'string' && LANGUAGE.test(value) ? null : 'The :attribute field must be a language subtag (1 to 8 letters, e.g. "fr").';
    case 'version':
      return typeof value === 'string' && VERSION.test(value) ? null : 'The :attribute field must be a version of dot-separated numbers (e.g. "4.2").';
    case 'instant':
      return checkInstantValue(value);
  }
}

/** A condition's cost (FILTER_COSTS); 0 for one that is not valid. */
export function conditionCost(node: Record<string, unknown>): number {
  const type = typeof node.field === 'string' ? fieldType(node.field) : null;
  if (!type) return 0;
  return FILTER_COSTS[type] + (Array.isArray(node.value) ? Math.ceil(node.value.length / LIST_UNIT) : 0);
}

/** A filter's cost: its conditions', each counted as if checked on every installation. */
export function filterCost(filter: FilterNode): number {
  let cost = 0;
  const stack: unknown[] = [filter];
  while (stack.length > 0) {
    const node = stack.pop();
    if (!isPlainObject(node)) continue;
    if ('and' in node || 'or' in node) stack.push(...((node.and ?? node.or) as unknown[]));
    else if ('not' in node) stack.push(node.not);
    else cost += conditionCost(node);
  }
  return cost;
}

type Problems = [string, string][];
const at = (path: string, key: string | number) => (path ? `${path}.${key}` : String(key));

function conditionProblems(node: Record<string, unknown>, path: string, problems: Problems): void {
  for (const key of Object.keys(node)) if (!['field', 'op', 'value'].includes(key)) problems.push([at(path, key), NOT_ALLOWED]);
  const { field, op, value } = node;
  let type: FieldType | null = null;
  if (field === undefined) problems.push([at(path, 'field'), 'The :attribute field is required.']);
  else if (typeof field !== 'string') problems.push([at(path, 'field'), 'The :attribute field must be a string.']);
  else if ((type = fieldType(field)) === null) {
    problems.push([at(path, 'field'), `The :attribute field must be properties.<key> or one of ${FILTER_FIELDS.join(', ')}.`]);
  } else if (type === 'property' && !PROPERTY_KEY.test(field.slice('properties.'.length))) {
    problems.push([
      at(path, 'field'),
      'The :attribute field must name a property key: a lower-case letter followed by at most 63 lower-case letters, digits and _.',
    ]);
    type = null;
  }
  if (op === undefined) return void problems.push([at(path, 'op'), 'The :attribute field is required.']);
  if (typeof op !== 'string' || !(FILTER_OPS as readonly string[]).includes(op)) {
    return void problems.push([at(path, 'op'), `The :attribute field must be one of ${FILTER_OPS.join(', ')}.`]);
  }
  if (type === null) return;
  const allowed = OPS_BY_TYPE[type];
  if (!allowed.includes(op as FilterOp)) {
    return void problems.push([at(path, 'op'), `The :attribute field cannot be ${op} for ${String(field)}: it takes ${allowed.join(', ')}.`]);
  }
  const valuePath = at(path, 'value');
  if (op === 'exists' || op === 'not_exists') {
    if (value !== undefined) problems.push([valuePath, `The :attribute field is prohibited when op is ${op}.`]);
    return;
  }
  if (value === undefined || value === null) return void problems.push([valuePath, `The :attribute field is required when op is ${op}.`]);
  if (op !== 'in' && op !== 'not_in') {
    const problem = Array.isArray(value) ? `The :attribute field must be a single value when op is ${op}.` : scalarProblem(type, op as FilterOp, value);
    if (problem) problems.push([valuePath, problem]);
    return;
  }
  if (!Array.isArray(value)) return void problems.push([valuePath, `The :attribute field must be an array when op is ${op}.`]);
  if (value.length < 1 || value.length > FILTER_LIMITS.values) {
    return void problems.push([valuePath, `The :attribute field must have 1 to ${FILTER_LIMITS.values} items.`]);
  }
  value.forEach((item, index) => {
    const problem = scalarProblem(type, op, item);
    if (problem) problems.push([at(valuePath, index), problem]);
  });
  // A property compares within one type: a list of several could only half match.
  if (type === 'property' && new Set(value.map((item) => typeof item)).size > 1) {
    problems.push([valuePath, 'The :attribute field must hold values of one type.']);
  }
}

/**
 * Every problem of a filter, at its path relative to the filter ('' for the filter itself): its
 * shape, depth and size first, then each condition's field, op and value. Iterative, so no depth
 * reaches the stack (the request pipe bounds nesting anyway).
 */
export function filterProblems(filter: unknown): Problems {
  const problems: Problems = [];
  let conditions = 0;
  let cost = 0;
  let pastBudgetAt: string | null = null;
  const stack: { node: unknown; path: string; depth: number }[] = [{ node: filter, path: '', depth: 1 }];
  while (stack.length > 0) {
    const { node, path, depth } = stack.pop()!;
    if (!isPlainObject(node)) {
      problems.push([path, 'The :attribute field must be an object.']);
      continue;
    }
    if (depth > FILTER_LIMITS.depth) {
      problems.push([path, `The :attribute field must not nest deeper than ${FILTER_LIMITS.depth} levels.`]);
      continue;
    }
    const keys = Object.keys(node);
    const group = keys.length === 1 && (keys[0] === 'and' || keys[0] === 'or' || keys[0] === 'not') ? keys[0] : null;
    if (group === 'not') {
      stack.push({ node: node.not, path: at(path, 'not'), depth: depth + 1 });
    } else if (group) {
      const children = node[group];
      if (!Array.isArray(children)) problems.push([at(path, group), 'The :attribute field must be an array.']);
      else if (children.length < 1 || children.length > FILTER_LIMITS.children) {
        problems.push([at(path, group), `The :attribute field must have 1 to ${FILTER_LIMITS.children} items.`]);
      } else {
        for (let i = children.length - 1; i >= 0; i--) stack.push({ node: children[i], path: at(path, `${group}.${i}`), depth: depth + 1 });
      }
    } else if (keys.some((key) => key === 'and' || key === 'or' || key === 'not') || keys.length === 0) {
      problems.push([
        path,
        'The :attribute field must be exactly one of {"and": [...]}, {"or": [...]}, {"not": {...}} or a condition {"field", "op", "value"}.',
      ]);
    } else {
      conditions++;
      conditionProblems(node, path, problems);
      cost += conditionCost(node);
      if (pastBudgetAt === null && cost > FILTER_LIMITS.cost) pastBudgetAt = path;
    }
  }
  if (pastBudgetAt !== null) {
    problems.push([
      pastBudgetAt,
      `The :attribute field passes the filter's cost budget: the filter costs ${cost}, at most ${FILTER_LIMITS.cost} is allowed; a condition on a property costs ` +
        `${FILTER_COSTS.property}, on language ${FILTER_COSTS.language}, on app_version ${FILTER_COSTS.version}, on another field 1, and a list 1 more per ${LIST_UNIT} values.`,
    ]);
  }
  if (conditions > FILTER_LIMITS.conditions)
    problems.unshift(['', `The :attribute field must not have more than ${plural(FILTER_LIMITS.conditions, 'condition')}.`]);
  return problems;
}

/**
 * `recipients.filter`: problems at their own paths (`recipients.filter.and.1.op`), the filter's
 * own (shape, size) at `recipients.filter`.
 */
export const AudienceFilter = () =>
  rule(
    'audienceFilter',
    described(
      (value) => {
        const problems = filterProblems(value);
        return problems.find(([path]) => path === '')?.[1] ?? (problems.length > 0 ? INNER_ERRORS : null);
      },
      {
        type: 'object',
        additionalProperties: true,
        // Which op a field takes, and the depth, are beyond JSON Schema: the rules are in docs/api.md.
        'x-expression': 'docs/api.md#audience-filters',
        description:
          'An expression (docs/api.md#audience-filters): `{"and": [...]}`, `{"or": [...]}` (1 to 20 nodes each), `{"not": node}` or a condition ' +
          '`{"field", "op", "value"}`; at most 5 levels deep and 50 conditions, ' +
          'and a cost of at most 200 (a property condition 15, language 22, app_version 75, another field 1).',
        example: {
          and: [
            { field: 'platform', op: 'eq', value: 'android' },
            { field: 'app_version', op: 'gte', value: '4.2' },
            { field: 'language', op: 'eq', value: 'fr' },
          ],
        },
      } as ApiPropertyOptions,
    ),
    { problems: (value) => filterProblems(value).filter(([path]) => path !== '') },
  );
