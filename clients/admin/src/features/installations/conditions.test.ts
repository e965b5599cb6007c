import { describe, expect, it } from 'vitest';
import { filterOf, newRow } from './conditions';

describe('the condition builder', () => {
  it('makes the API filter: one condition alone, several joined by and/or', () => {
    expect(filterOf([], 'and')).toBeNull();
    expect(filterOf([{ ...newRow('platform'), value: 'ios' }], 'and')).toEqual({ field: 'platform', op: 'eq', value: 'ios' });
    expect(
      filterOf(
        [
          { field: 'app_version', key: '', op: 'gte', value: ' 4.2 ' },
          { field: 'language', key: '', op: 'in', value: 'fr, de,' },
          { field: 'tags', key: '', op: 'exists', value: 'ignored' },
        ],
        'or',
      ),
    ).toEqual({
      or: [
        { field: 'app_version', op: 'gte', value: '4.2' },
        { field: 'language', op: 'in', value: ['fr', 'de'] },
        { field: 'tags', op: 'exists' },
      ],
    });
  });

  it('types property values: numbers and true/false keep their type', () => {
    const row = (value: string, op: 'eq' | 'in' = 'eq') => ({ field: 'properties' as const, key: 'plan', op, value });
    expect(filterOf([row('pro')], 'and')).toEqual({ field: 'properties.plan', op: 'eq', value: 'pro' });
    expect(filterOf([row('3')], 'and')).toEqual({ field: 'properties.plan', op: 'eq', value: 3 });
    expect(filterOf([row('true')], 'and')).toEqual({ field: 'properties.plan', op: 'eq', value: true });
    expect(filterOf([row('1, 2.5', 'in')], 'and')).toEqual({ field: 'properties.plan', op: 'in', value: [1, 2.5] });
  });
});
