import { filterCost, filterProblems, FilterNode } from './audience-filter';
import { compileFilter, versionKey } from './audience-sql';

/** As the pipe reports them, `filter` standing for the filter itself. */
const problems = (filter: unknown) => Object.fromEntries(filterProblems(filter).map(([path, m]) => [path, m.replaceAll(':attribute', path || 'filter')]));
const cond = (field: string, op: string, value?: unknown) => (value === undefined ? { field, op } : { field, op, value });
const ok = (filter: unknown) => expect(filterProblems(filter)).toEqual([]);

/** docs/api.md#audience-filters: which filters are valid, and where each problem is reported. */
describe('audience filter validation', () => {
  it('accepts every field with each op it takes', () => {
    const valid: [string, string, unknown?][] = [
      ['properties.plan', 'eq', 'pro'],
      ['properties.plan', 'ne', 'pro'],
      ['properties.purchases', 'lt', 3],
      ['properties.purchases', 'lte', 3.5],
      ['properties.city', 'gt', 'L'],
      ['properties.purchases', 'gte', 0],
      ['properties.beta', 'eq', true],
      ['properties.plan', 'in', ['pro', 'team']],
      ['properties.purchases', 'not_in', [1, 2]],
      ['properties.plan', 'exists'],
      ['properties.plan', 'not_exists'],
      ['tags', 'contains', 'beta'],
      ['tags', 'exists'],
      ['tags', 'not_exists'],
      ['platform', 'eq', 'ios'],
      ['platform', 'ne', 'web'],
      ['platform', 'in', ['ios', 'android']],
      ['platform', 'not_in', ['web']],
      ['permission', 'eq', 'granted'],
      ['permission', 'not_in', ['denied', 'unknown']],
      ['language', 'eq', 'fr'],
      ['language', 'in', ['fr', 'DE']],
      ['language', 'not_exists'],
      ['app_version', 'gte', '4.2'],
      ['app_version', 'lt', '10.0.1'],
      ['app_version', 'eq', '4'],
      ['app_version', 'exists'],
      ['user_id', 'eq', 'user-1'],
      ['user_id', 'not_in', ['a', 'b']],
      ['user_id', 'exists'],
      ['last_seen_at', 'within_last', '7d'],
      ['last_seen_at', 'not_within_last', '12h'],
      ['registered_at', 'gte', '2026-01-01T00:00:00Z'],
      ['registered_at', 'within_last', '90m'],
    ];
    for (const [field, op, value] of valid) ok(cond(field, op, value));
  });

  it.each<[string, unknown, Record<string, string>]>([
    ['lt on platform', cond('platform', 'lt', 'ios'), { op: 'The op field cannot be lt for platform: it takes eq, ne, in, not_in.' }],
    [
      'contains on a property',
      cond('properties.plan', 'contains', 'x'),
      { op: 'The op field cannot be contains for properties.plan: it takes eq, ne, in, not_in, lt, lte, gt, gte, exists, not_exists.' },
    ],
    [
      'a date op on a property',
      cond('properties.purchases', 'within_last', '7d'),
      { op: 'The op field cannot be within_last for properties.purchases: it takes eq, ne, in, not_in, lt, lte, gt, gte, exists, not_exists.' },
    ],
    [
      'eq on a date',
      cond('last_seen_at', 'eq', '2026-01-01T00:00:00Z'),
      { op: 'The op field cannot be eq for last_seen_at: it takes lt, lte, gt, gte, within_last, not_within_last.' },
    ],
    [
      'contains on user_id',
      cond('user_id', 'contains', 'a'),
      { op: 'The op field cannot be contains for user_id: it takes eq, ne, in, not_in, exists, not_exists.' },
    ],
    ['eq on tags', cond('tags', 'eq', 'a'), { op: 'The op field cannot be eq for tags: it takes contains, exists, not_exists.' }],
    [
      'in on app_version',
      cond('app_version', 'in', ['1']),
      { op: 'The op field cannot be in for app_version: it takes eq, ne, lt, lte, gt, gte, exists, not_exists.' },
    ],
    [
      'an unknown op',
      cond('platform', 'like', 'i'),
      { op: 'The op field must be one of eq, ne, lt, lte, gt, gte, in, not_in, exists, not_exists, contains, within_last, not_within_last.' },
    ],
    [
      'an unknown field',
      cond('country', 'eq', 'fr'),
      { field: 'The field field must be properties.<key> or one of tags, platform, permission, language, app_version, user_id, last_seen_at, registered_at.' },
    ],
    [
      'a bad property key',
      cond('properties.Plan', 'eq', 'x'),
      { field: 'The field field must name a property key: a lower-case letter followed by at most 63 lower-case letters, digits and _.' },
    ],
    ['a missing op and field', { value: 1 }, { field: 'The field field is required.', op: 'The op field is required.' }],
    ['an unknown key', { field: 'platform', op: 'eq', value: 'ios', extra: 1 }, { extra: 'The extra field is not allowed.' }],
  ])('422 at the op or field: %s', (_name, filter, expected) => {
    expect(problems(filter)).toEqual(expected);
  });

  it.each<[string, unknown, string]>([
    ['a platform that is not one', cond('platform', 'eq', 'windows'), 'The value field must be one of ios, android, web, huawei.'],
    ['a permission that is not one', cond('permission', 'in', ['granted', 'maybe']), ''],
    ['a number for a date', cond('last_seen_at', 'gt', 5), 'The value field must be a string.'],
    [
      'a bad date',
      cond('last_seen_at', 'gt', '2026-02-30T00:00:00Z'),
      'The value field must be a real ISO 8601 date-time with Z or a ±hh:mm offset, between the years 2000 and 2100.',
    ],
    ['a bad duration', cond('last_seen_at', 'within_last', '7w'), 'The value field must be a duration: 1 to 99999 followed by m, h or d (e.g. "7d").'],
    ['a zero duration', cond('last_seen_at', 'within_last', '0d'), 'The value field must be a duration: 1 to 99999 followed by m, h or d (e.g. "7d").'],
    ['a version with letters', cond('app_version', 'gte', '4.2-beta'), 'The value field must be a version of dot-separated numbers (e.g. "4.2").'],
    ['a number for a version', cond('app_version', 'gte', 4.2), 'The value field must be a version of dot-separated numbers (e.g. "4.2").'],
    ['a boolean with lt', cond('properties.beta', 'lt', true), 'The value field must be a number or a string when op is lt.'],
    ['an object for a property', cond('properties.plan', 'eq', { a: 1 }), 'The value field must be a string, a number or a boolean.'],
    ['null', cond('properties.plan', 'eq', null), 'The value field is required when op is eq.'],
    ['no value', cond('properties.plan', 'ne'), 'The value field is required when op is ne.'],
    ['a value with exists', cond('properties.plan', 'exists', true), 'The value field is prohibited when op is exists.'],
    ['a list with eq', cond('platform', 'eq', ['ios']), 'The value field must be a single value when op is eq.'],
    ['a scalar with in', cond('platform', 'in', 'ios'), 'The value field must be an array when op is in.'],
    ['an empty list', cond('user_id', 'not_in', []), 'The value field must have 1 to 100 items.'],
    [
      '101 values',
      cond(
        'user_id',
        'in',
        Array.from({ length: 101 }, (_, i) => `u${i}`),
      ),
      'The value field must have 1 to 100 items.',
    ],
    ['mixed types', cond('properties.plan', 'in', ['1', 1]), 'The value field must hold values of one type.'],
    ['a bad tag', cond('tags', 'contains', 'a b'), 'The value field may contain only letters, digits, _ . : and -.'],
    ['a long property string', cond('properties.plan', 'eq', 'x'.repeat(256)), 'The value field must not be greater than 255 characters.'],
    ['a bad language', cond('language', 'eq', 'fr-FR'), 'The value field must be a language subtag (1 to 8 letters, e.g. "fr").'],
  ])('422 at the value: %s', (_name, filter, message) => {
    const found = problems(filter);
    if (message === '') expect(found).toEqual({ 'value.1': 'The value.1 field must be one of granted, denied, unknown.' });
    else expect(found).toEqual({ value: message });
  });

  it('reports each bad node at its own path', () => {
    const filter = {
      and: [cond('platform', 'eq', 'ios'), cond('platform', 'lt', 'ios'), { or: [cond('tags', 'contains', 'a'), { not: cond('user_id', 'eq', 5) }] }, 'x'],
    };
    expect(problems(filter)).toEqual({
      'and.1.op': 'The and.1.op field cannot be lt for platform: it takes eq, ne, in, not_in.',
      'and.2.or.1.not.value': 'The and.2.or.1.not.value field must be a string.',
      'and.3': 'The and.3 field must be an object.',
    });
  });

  it('refuses nodes that are not exactly one group or a condition', () => {
    expect(problems({})).toEqual({ '': expect.stringContaining('must be exactly one of') });
    expect(problems({ and: [cond('tags', 'exists')], or: [cond('tags', 'exists')] })).toEqual({ '': expect.stringContaining('must be exactly one of') });
    expect(problems({ and: [cond('tags', 'exists')], field: 'tags' })).toEqual({ '': expect.stringContaining('must be exactly one of') });
    expect(problems({ and: [] })).toEqual({ and: 'The and field must have 1 to 20 items.' });
    expect(problems({ or: cond('tags', 'exists') })).toEqual({ or: 'The or field must be an array.' });
    expect(problems([])).toEqual({ '': 'The filter field must be an object.' });
  });

  it('limits: 20 nodes per group, depth 5, 50 conditions', () => {
    const tags = cond('tags', 'exists');
    ok({ or: Array.from({ length: 20 }, () => tags) });
    expect(Object.keys(problems({ or: Array.from({ length: 21 }, () => tags) }))).toEqual(['or']);
    // Depth 5: and > not > or > not > condition; one more level is refused at the node that exceeds it.
    ok({ and: [{ not: { or: [{ not: tags }] } }] });
    expect(problems({ and: [{ not: { or: [{ not: { not: tags } }] } }] })).toEqual({
      'and.0.not.or.0.not.not': 'The and.0.not.or.0.not.not field must not nest deeper than 5 levels.',
    });
    const group = (n: number) => ({ or: Array.from({ length: n }, () => tags) });
    ok({ and: [group(20), group(20), group(10)] });
    expect(problems({ and: [group(20), group(20), group(11)] })).toEqual({ '': 'The filter field must not have more than 50 conditions.' });
  });

  it('a cost budget of 200: a property condition 15, language 22, app_version 75, another field 1, a list 1 more per 50 values', () => {
    const versions = (n: number) => Array.from({ length: n }, (_, k) => cond('app_version', 'gt', `3.${k}`));
    const properties = (n: number) => Array.from({ length: n }, (_, k) => cond(`properties.p${k}`, 'ne', k));
    // 75 + 75 + 22 + 23 (a list) + 1 + 3 (a list of 100 user ids) + 1 = 200: accepted.
    ok({
      not: {
        and: [
          ...versions(2),
          cond('language', 'ne', 'fr'),
          cond('language', 'in', ['de', 'en']),
          cond('tags', 'exists'),
          cond(
            'user_id',
            'not_in',
            Array.from({ length: 100 }, (_, k) => `u${k}`),
          ),
          { or: [cond('platform', 'ne', 'web')] },
        ],
      },
    });
    expect(filterCost({ or: [{ and: versions(2) }, ...properties(3)] } as FilterNode)).toBe(195);
    // Refused at the condition that passes 200, wherever it is.
    expect(problems({ or: [{ and: versions(2) }, { not: { or: properties(4) } }] })).toEqual({
      'or.1.not.or.3':
        "The or.1.not.or.3 field passes the filter's cost budget: the filter costs 210, at most 200 is allowed; a condition on a property costs 15, " +
        'on language 22, on app_version 75, on another field 1, and a list 1 more per 50 values.',
    });
    // 40 conditions on plain fields stay well inside it.
    const tags = { or: Array.from({ length: 20 }, () => cond('tags', 'exists')) };
    expect(filterCost({ and: [tags, tags] } as FilterNode)).toBe(40);
  });
});

describe('audience filter SQL', () => {
  const now = new Date('2026-11-26T12:00:00.000Z');

  it('is parameters only: values never reach the text', () => {
    const filter: FilterNode = {
      and: [
        cond('properties.plan', 'eq', "pro'; DROP TABLE x; --") as FilterNode,
        cond('user_id', 'in', ["o'hara"]) as FilterNode,
        { not: cond('language', 'ne', 'FR') as FilterNode },
        cond('last_seen_at', 'within_last', '7d') as FilterNode,
      ],
    };
    const { sql, params } = compileFilter(filter, 5, now);
    expect(sql).not.toMatch(/DROP|hara|'fr'|'FR'/);
    expect(sql.match(/\$\d+/g)).toEqual(['$5', '$6', '$7', '$8']);
    expect(params).toEqual(['{"plan":"pro\'; DROP TABLE x; --"}', ["o'hara"], 'fr', new Date('2026-11-19T12:00:00.000Z')]);
  });

  it('compares versions as numbers, trailing zeros ignored', () => {
    expect(versionKey('1.10')).toEqual([1, 10]);
    expect(versionKey('4.2.0')).toEqual([4, 2]);
    expect(versionKey('10.0')).toEqual([10]);
    expect(versionKey('0')).toEqual([0]);
  });
});
