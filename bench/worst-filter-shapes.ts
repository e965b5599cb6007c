import { FILTER_LIMITS, type FilterNode, filterProblems } from '../src/common/audience-filter';

/**
 * Candidates for the costliest filter the validator accepts (docs/api.md#audience-filters, issue 51
 * "Measured"), on the installations of bench/lib/audience-seed.ts. Each is a `not` over every
 * condition the limits allow (50, 5 of them on app_version or language), each condition true for
 * every installation: under the `not` they become one `or` of their complements, each false, so
 * every one is checked on every row and no index serves any (docs/api.md#audience-filters "Cost").
 * They differ in what one condition costs; bench/scenarios/audiences.ts counts each, and
 * WORST_FILTER is the one that measured slowest (bench/HISTORY.md "The worst filter").
 */
const c = (field: string, op: string, value?: unknown) => (value === undefined ? { field, op } : { field, op, value }) as FilterNode;

/** `n` conditions in groups of at most FILTER_LIMITS.children under one `and`. */
const grouped = (conditions: FilterNode[]): FilterNode[] => {
  const groups: FilterNode[] = [];
  for (let i = 0; i < conditions.length; i += FILTER_LIMITS.children) groups.push({ and: conditions.slice(i, i + FILTER_LIMITS.children) });
  return groups;
};

const OTHERS = FILTER_LIMITS.conditions - FILTER_LIMITS.computed;
const range = (n: number) => Array.from({ length: n }, (_, k) => k);
/** 100 strings of 200 characters none of the seeded values is: 45 lists of them stay under the 1 MB body limit. */
const longStrings = (k: number) => range(FILTER_LIMITS.values).map((v) => `${'x'.repeat(180)}-${k}-${v}`.padEnd(200, 'y'));

/** The computed conditions: app_version (two regular expressions and a cast per row) or language (one). */
const VERSIONS = range(FILTER_LIMITS.computed).map((k) => c('app_version', 'gt', `0.${k}`));
const LANGUAGES = range(FILTER_LIMITS.computed).map((k) =>
  c(
    'language',
    'not_in',
    range(FILTER_LIMITS.values).map((v) => `q${k}${v}`.replace(/[0-9]/g, (d) => 'abcdefghij'[Number(d)])),
  ),
);

const worst = (computed: FilterNode[], others: FilterNode[]): FilterNode => ({ not: { and: grouped([...computed, ...others]) } });

export const WORST_CANDIDATES: Record<string, FilterNode> = {
  'string order on a property (plan gt), 5 app_version gt': worst(
    VERSIONS,
    range(OTHERS).map((k) => c('properties.plan', 'gt', `a${k}`)),
  ),
  'number order on a property (purchases gte), 5 app_version gt': worst(
    VERSIONS,
    range(OTHERS).map((k) => c('properties.purchases', 'gte', -1 - k)),
  ),
  'not_in 100 strings on a property, 5 app_version gt': worst(
    VERSIONS,
    range(OTHERS).map((k) => c('properties.plan', 'not_in', longStrings(k))),
  ),
  'not_in 100 numbers on a property, 5 app_version gt': worst(
    VERSIONS,
    range(OTHERS).map((k) =>
      c(
        'properties.purchases',
        'not_in',
        range(FILTER_LIMITS.values).map((v) => 1000 + k * 100 + v),
      ),
    ),
  ),
  'ne on a property, 5 app_version gt': worst(
    VERSIONS,
    range(OTHERS).map((k) => c('properties.city', 'ne', `nowhere-${k}`)),
  ),
  'not_in 100 user ids, 5 app_version gt': worst(
    VERSIONS,
    range(OTHERS).map((k) => c('user_id', 'not_in', longStrings(k))),
  ),
  'string order on a property (plan gt), 5 language not_in 100': worst(
    LANGUAGES,
    range(OTHERS).map((k) => c('properties.plan', 'gt', `a${k}`)),
  ),
};

for (const [label, filter] of Object.entries(WORST_CANDIDATES)) {
  const problems = filterProblems(filter);
  if (problems.length > 0) throw new Error(`worst filter candidate "${label}" is refused by the validator: ${JSON.stringify(problems.slice(0, 3))}`);
}

/** The candidate that measured slowest (bench/HISTORY.md "The worst filter"): what the bench counts through the API. */
export const WORST_FILTER_LABEL = 'not_in 100 numbers on a property, 5 app_version gt';
export const WORST_FILTER = WORST_CANDIDATES[WORST_FILTER_LABEL];
