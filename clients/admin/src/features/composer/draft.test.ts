import { describe, expect, it } from 'vitest';
import { rowsOf } from '../installations/conditions';
import { audienceComplete, type Draft, emptyAudience, emptyDraft, emptyVariant, recipientsOf, sampleOf, sendBodyOf, variantDraft } from './draft';

const draft = (patch: Partial<Draft>): Draft => ({ ...emptyDraft(), title: 'Hi', body: 'There', ...patch });

describe('the composer’s audience', () => {
  it('makes every recipients kind; a filter without a condition is everyone', () => {
    const audience = emptyAudience();
    expect(recipientsOf(audience)).toEqual({ all: true });
    expect(recipientsOf({ ...audience, kind: 'all' })).toEqual({ all: true });
    expect(recipientsOf({ ...audience, kind: 'user_ids', list: 'alice, bob\ncarol  dave' })).toEqual({ user_ids: ['alice', 'bob', 'carol', 'dave'] });
    expect(recipientsOf({ ...audience, kind: 'installation_ids', list: 'i-1' })).toEqual({ installation_ids: ['i-1'] });
    expect(recipientsOf({ ...audience, kind: 'tags', list: 'vip,beta' })).toEqual({ tags: ['vip', 'beta'] });
    expect(recipientsOf({ ...audience, kind: 'topic', topic: 'promotions' })).toEqual({ topic: 'promotions' });
  });

  it('builds the filter from the controls: choices, durations, dates and typed properties', () => {
    const audience = {
      ...emptyAudience(),
      combinator: 'and' as const,
      rows: [
        { field: 'platform' as const, key: '', op: 'in' as const, value: '', values: ['ios', 'android'] },
        { field: 'last_seen_at' as const, key: '', op: 'within_last' as const, value: '7d' },
        { field: 'registered_at' as const, key: '', op: 'lt' as const, value: '2026-11-01T09:30' },
        { field: 'properties' as const, key: 'plan', op: 'eq' as const, value: '3', type: 'text' as const },
        { field: 'properties' as const, key: 'purchases', op: 'gte' as const, value: '3', type: 'number' as const },
        { field: 'properties' as const, key: 'trial', op: 'eq' as const, value: 'false', type: 'boolean' as const },
        { field: 'permission' as const, key: '', op: 'ne' as const, value: 'denied' },
        { field: 'tags' as const, key: '', op: 'exists' as const, value: '' },
      ],
    };
    expect(recipientsOf(audience)).toEqual({
      filter: {
        and: [
          { field: 'platform', op: 'in', value: ['ios', 'android'] },
          { field: 'last_seen_at', op: 'within_last', value: '7d' },
          // The viewer's wall clock, as an instant.
          { field: 'registered_at', op: 'lt', value: new Date(2026, 10, 1, 9, 30).toISOString() },
          { field: 'properties.plan', op: 'eq', value: '3' },
          { field: 'properties.purchases', op: 'gte', value: 3 },
          { field: 'properties.trial', op: 'eq', value: false },
          { field: 'permission', op: 'ne', value: 'denied' },
          { field: 'tags', op: 'exists' },
        ],
      },
    });
  });

  it('takes the filter as JSON, and says so when it does not parse', () => {
    const audience = { ...emptyAudience(), json: '{"not": {"field": "platform", "op": "eq", "value": "web"}}' };
    expect(recipientsOf(audience)).toEqual({ filter: { not: { field: 'platform', op: 'eq', value: 'web' } } });
    expect(recipientsOf({ ...audience, json: '{"field": ' })).toEqual({ field: 'audience', message: expect.stringMatching(/not valid JSON/) });
  });

  it('reads JSON back into the controls when they can show it, not otherwise', () => {
    const filter = {
      or: [
        { field: 'platform', op: 'not_in', value: ['web'] },
        { field: 'properties.plan', op: 'in', value: ['pro', 'team'] },
        { field: 'properties.code', op: 'eq', value: '42' },
        { field: 'language', op: 'exists' },
      ],
    };
    const back = rowsOf(filter);
    expect(back?.combinator).toBe('or');
    expect(back?.rows.map((r) => [r.field, r.key, r.op, r.value, r.values, r.type])).toEqual([
      ['platform', '', 'not_in', 'web', ['web'], undefined],
      ['properties', 'plan', 'in', 'pro, team', undefined, 'auto'],
      // "42" as text stays text on the way back.
      ['properties', 'code', 'eq', '42', undefined, 'text'],
      ['language', '', 'exists', '', undefined, undefined],
    ]);
    expect(recipientsOf({ ...emptyAudience(), rows: back!.rows, combinator: back!.combinator })).toEqual({ filter });
    expect(rowsOf({ not: { field: 'platform', op: 'eq', value: 'web' } })).toBeNull();
    expect(rowsOf({ and: [{ or: [] }] })).toBeNull();
    expect(rowsOf({ field: 'platform', op: 'lt', value: 'ios' })).toBeNull();
  });
});

describe('the composer’s count', () => {
  it('waits for every condition to be built to the end', () => {
    const rows = (...r: Partial<import('../installations/conditions').ConditionRow>[]) => ({
      ...emptyAudience(),
      rows: r.map((x) => ({ field: 'platform' as const, key: '', op: 'eq' as const, value: '', ...x })),
    });
    expect(audienceComplete(rows())).toBe(true);
    expect(audienceComplete(rows({ value: 'ios' }))).toBe(true);
    expect(audienceComplete(rows({ value: '' }))).toBe(false);
    expect(audienceComplete(rows({ op: 'in', values: [] }))).toBe(false);
    expect(audienceComplete(rows({ op: 'in', values: ['web'] }))).toBe(true);
    expect(audienceComplete(rows({ field: 'last_seen_at', op: 'within_last', value: 'd' }))).toBe(false);
    expect(audienceComplete(rows({ field: 'last_seen_at', op: 'within_last', value: '7d' }))).toBe(true);
    expect(audienceComplete(rows({ field: 'properties', key: '', op: 'exists' }))).toBe(false);
    expect(audienceComplete(rows({ field: 'properties', key: 'plan', op: 'exists' }))).toBe(true);
    // JSON is the server's to judge.
    expect(audienceComplete({ ...rows({ value: '' }), json: '{' })).toBe(true);
  });
});

describe('the composer’s send body', () => {
  it('is the API’s body with only what was filled in', () => {
    expect(sendBodyOf(draft({}))).toEqual({ body: { recipients: { all: true }, notification: { title: 'Hi', body: 'There' } } });
  });

  it('carries image, link, data, schedule, pace, options and platform fields', () => {
    const made = sendBodyOf(
      draft({
        audience: { ...emptyAudience(), kind: 'tags', list: 'vip' },
        imageUrl: ' https://cdn.example.com/a.png ',
        actionUrl: 'myapp://orders/42',
        data: '{"order_id": "42"}',
        sendAt: '2026-12-01T09:30',
        localTime: '08:15',
        throttle: '600',
        platforms: ['ios', 'web'],
        priority: 'normal',
        ttl: '3600',
        collapseId: 'sale',
        category: 'marketing',
        optionsTopic: 'promotions',
        dryRun: true,
        apns: { subtitle: 'Today only', badge: '3', sound: 'default', interruption_level: 'time-sensitive', relevance_score: '0.5', thread_id: '' },
        android: { channel_id: 'sales', color: '#FF5722', direct_boot_ok: 'true', bandwidth_constrained_ok: 'false' },
        web: { require_interaction: 'true', tag: 'sale' },
        webButtons: [
          { action: 'shop', title: 'Shop now', url: '' },
          { action: '', title: '', url: '' },
        ],
      }),
    );
    expect(made).toEqual({
      body: {
        recipients: { tags: ['vip'] },
        notification: { title: 'Hi', body: 'There', image_url: 'https://cdn.example.com/a.png', action_url: 'myapp://orders/42' },
        data: { order_id: '42' },
        send_at: new Date(2026, 11, 1, 9, 30).toISOString(),
        options: {
          local_time: '08:15',
          throttle_per_minute: 600,
          platforms: ['ios', 'web'],
          priority: 'normal',
          ttl: 3600,
          collapse_id: 'sale',
          category: 'marketing',
          topic: 'promotions',
          dry_run: true,
          badge: 3,
          sound: 'default',
          apns: { subtitle: 'Today only', interruption_level: 'time-sensitive', relevance_score: 0.5 },
          android: { channel_id: 'sales', color: '#FF5722', direct_boot_ok: true, bandwidth_constrained_ok: false },
          web: { require_interaction: true, tag: 'sale', actions: [{ action: 'shop', title: 'Shop now' }] },
        },
      },
    });
  });

  it('sends a template with its variables in place of the texts', () => {
    expect(sendBodyOf(draft({ source: 'template', templateKey: 'order_shipped', variables: '{"first_name": "Ann"}' }))).toEqual({
      body: { recipients: { all: true }, template: { key: 'order_shipped', variables: { first_name: 'Ann' } } },
    });
    expect(sendBodyOf(draft({ source: 'template', templateKey: 'welcome' }))).toEqual({ body: { recipients: { all: true }, template: { key: 'welcome' } } });
    expect(sendBodyOf(draft({ source: 'template', templateKey: 'welcome', variables: '"Ann"' }))).toEqual({
      problems: [{ field: 'variables', message: 'The variables must be a JSON object, such as {"first_name": "Ann"}.' }],
    });
  });

  it('finds what cannot be sent before asking: data that is not an object, numbers that are not whole', () => {
    expect(sendBodyOf(draft({ data: '[1, 2]', ttl: '1.5', throttle: 'fast' }))).toEqual({
      problems: [
        { field: 'data', message: 'The data must be a JSON object, such as {"order_id": "42"}.' },
        { field: 'ttl', message: 'The time to live must be a whole number.' },
        { field: 'throttle_per_minute', message: 'The pace must be a whole number.' },
      ],
    });
  });

  it('sends variants in place of the texts, each with its own content, and the A/B test only when switched on', () => {
    const variants = [
      { ...emptyVariant(0), key: ' short ', weight: '70', title: 'Sale', body: 'Half price', imageUrl: 'https://cdn.example.com/a.png' },
      { ...emptyVariant(1), key: 'long', weight: '30', source: 'template' as const, templateKey: 'sale', variables: '{"pct": 50}' },
    ];
    const off = sendBodyOf(draft({ source: 'variants', variants, title: 'ignored', data: '{"campaign": "spring"}' }));
    expect(off).toEqual({
      body: {
        recipients: { all: true },
        variants: [
          { key: 'short', weight: 70, notification: { title: 'Sale', body: 'Half price', image_url: 'https://cdn.example.com/a.png' } },
          { key: 'long', weight: 30, template: { key: 'sale', variables: { pct: 50 } } },
        ],
        data: { campaign: 'spring' },
      },
    });
    const on = sendBodyOf(
      draft({ source: 'variants', variants, abTest: { on: true, samplePercent: '20', winnerAfter: '90', unit: 'm', metric: 'displayed' } }),
    );
    expect('body' in on && on.body.options).toEqual({ ab_test: { sample_percent: 20, winner_after: '90m', metric: 'displayed' } });
    expect('body' in on && 'notification' in on.body).toBe(false);
    // Variants switched back to one text: no A/B test goes with it.
    expect(sendBodyOf(draft({ source: 'inline', variants, abTest: { on: true, samplePercent: '20', winnerAfter: '4', unit: 'h', metric: 'opened' } }))).toEqual(
      {
        body: { recipients: { all: true }, notification: { title: 'Hi', body: 'There' } },
      },
    );
  });

  it('finds a variant’s or the A/B test’s mistakes before asking, on their fields', () => {
    const variants = [
      { ...emptyVariant(0), weight: 'half', title: 'A' },
      { ...emptyVariant(1), source: 'template' as const, templateKey: 'sale', variables: '[1]' },
    ];
    expect(
      sendBodyOf(draft({ source: 'variants', variants, abTest: { on: true, samplePercent: '12.5', winnerAfter: '4', unit: 'h', metric: 'opened' } })),
    ).toEqual({
      problems: [
        { field: 'variant.0.weight', message: 'The weight of variant 1 must be a whole number.' },
        { field: 'variant.1.variables', message: 'The variables of variant 2 must be a JSON object, such as {"first_name": "Ann"}.' },
        { field: 'ab_test.sample_percent', message: 'The sample percentage must be a whole number.' },
      ],
    });
  });

  it('previews a variant as the send it is alone; the sample is the audience times the percent', () => {
    const variants = [emptyVariant(0), { ...emptyVariant(1), title: 'B title', body: 'B body' }];
    const shown = variantDraft(
      draft({ source: 'variants', variants, abTest: { on: true, samplePercent: '10', winnerAfter: '4', unit: 'h', metric: 'opened' } }),
      1,
    );
    expect(sendBodyOf(shown)).toEqual({ body: { recipients: { all: true }, notification: { title: 'B title', body: 'B body' } } });
    // Not variants: the draft itself.
    const plain = draft({});
    expect(variantDraft(plain, 1)).toBe(plain);
    expect(sampleOf(1_100, 10)).toBe(110);
    expect(sampleOf(2_345, 15)).toBe(352);
  });
});
