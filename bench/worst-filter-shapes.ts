import { FILTER_LIMITS, filterCost, type FilterNode, filterProblems } from '../src/common/audience-filter';

/**
 * Candidates for the costliest filter the validator accepts (docs/api.md#audience-filters "Cost",
 * issue 51 "Measured"), on the installations of bench/lib/audience-seed.ts. Each is a `not` over an
 * `and` of conditions that fill the cost budget (FILTER_LIMITS.cost), each true for every
 * installation: under the `not` they become one `or` of their complements, each false, so every one
 * is checked on every row and no index serves any. They differ in the kind of condition that takes
 * the budget; bench/tools/filter-costs.ts and bench/scenarios/audiences.ts count each, and
 * WORST_FILTER is the one that measured slowest (bench/HISTORY.md "The filter cost budget").
 */
const c = (field: string, op: string, value?: unknown) => (value === undefined ? { field, op } : { field, op, value }) as FilterNode;

/** `n` conditions in groups of at most FILTER_LIMITS.children under one `and`. */
const grouped = (conditions: FilterNode[]): FilterNode[] => {
  const groups: FilterNode[] = [];
  for (let i = 0; i < conditions.length; i += FILTER_LIMITS.children) groups.push({ and: conditions.slice(i, i + FILTER_LIMITS.children) });
  return groups;
};

const range = (n: number) => Array.from({ length: n }, (_, k) => k);
/** 100 strings of 200 characters none of the seeded values is. */
const longStrings = (k: number) => range(FILTER_LIMITS.values).map((v) => `${'x'.repeat(180)}-${k}-${v}`.padEnd(200, 'y'));

/** `conditions`, then conditions on a column (cost 1 each, true for every row) up to the budget. */
const worst = (conditions: FilterNode[]): FilterNode => {
  const rest = FILTER_LIMITS.cost - filterCost({ and: conditions });
  const columns = range(rest).map((k) => c('last_seen_at', 'lt', new Date(Date.UTC(2100, 0, 1 + k)).toISOString()));
  return { not: { and: grouped([...conditions, ...columns]) } };
};

export const WORST_CANDIDATES: Record<string, FilterNode> = {
  '13 properties ne a string': worst(range(13).map((k) => c('properties.city', 'ne', `nowhere-${k}`))),
  '13 properties gte a number': worst(range(13).map((k) => c('properties.purchases', 'gte', -1 - k))),
  '11 properties not_in 100 numbers': worst(
    range(11).map((k) =>
      c(
        'properties.purchases',
        'not_in',
        range(FILTER_LIMITS.values).map((v) => 1000 + k * 100 + v),
      ),
    ),
  ),
  '11 properties not_in 100 strings of 200 characters': worst(range(11).map((k) => c('properties.plan', 'not_in', longStrings(k)))),
  '2 app_version gt, 3 properties ne': worst([
    ...range(2).map((k) => c('app_version', 'gt', `0.${k}`)),
    ...range(3).map((k) => c('properties.city', 'ne', `nowhere-${k}`)),
  ]),
  '9 language ne': worst(range(9).map((k) => c('language', 'ne', `q${'abcdefghi'[k]}`))),
  '50 user_id not_in 100 strings of 200 characters': {
    not: { and: grouped(range(FILTER_LIMITS.conditions).map((k) => c('user_id', 'not_in', longStrings(k)))) },
  },
};

for (const [label, filter] of Object.entries(WORST_CANDIDATES)) {
  const problems = filterProblems(filter);
  if (problems.length > 0) throw new Error(`worst filter candidate "${label}" is refused by the validator: ${JSON.stringify(problems.slice(0, 3))}`);
}

/** The candidate that measured slowest (bench/HISTORY.md "The filter cost budget"): what the bench counts through the API. */
export const WORST_FILTER_LABEL = '2 app_version gt, 3 properties ne';
export const WORST_FILTER = WORST_CANDIDATES[WORST_FILTER_LABEL];
