import { describe, expect, it } from 'vitest';
import { fieldName, fieldOfPath, placeErrors } from './errors';

describe('the composer’s errors', () => {
  it('puts each API path on its field', () => {
    expect(fieldOfPath('recipients', 0)).toBe('audience');
    expect(fieldOfPath('recipients.user_ids.3', 0)).toBe('audience');
    expect(fieldOfPath('recipients.filter.and.2.value', 3)).toBe('condition.2');
    expect(fieldOfPath('recipients.filter.or.0.op', 2)).toBe('condition.0');
    expect(fieldOfPath('recipients.filter.value.1', 1)).toBe('condition.0');
    // JSON: no condition rows, so the filter's box.
    expect(fieldOfPath('recipients.filter.and.2.value', 0)).toBe('audience');
    expect(fieldOfPath('notification.title', 0)).toBe('title');
    expect(fieldOfPath('notification.image_url', 0)).toBe('image_url');
    expect(fieldOfPath('notification', 0)).toBe('content');
    expect(fieldOfPath('notification.localizations.fr.title', 0)).toBe('content');
    expect(fieldOfPath('data.From', 0)).toBe('data');
    expect(fieldOfPath('options.local_time', 0)).toBe('local_time');
    expect(fieldOfPath('options.badge_increment', 0)).toBe('badge');
    expect(fieldOfPath('options.apns.thread_id', 0)).toBe('apns.thread_id');
    expect(fieldOfPath('options.web.actions.0.title', 0)).toBe('web.actions');
    expect(fieldOfPath('options.live_activity', 0)).toBeNull();
    expect(fieldOfPath('template.key', 0)).toBe('template');
    expect(fieldOfPath('template', 0)).toBe('template');
    expect(fieldOfPath('template.variables', 0)).toBe('variables');
  });

  it('says it in the form’s words, not the request’s paths', () => {
    const placed = placeErrors(
      {
        recipients: ['The recipients field is required.'],
        'recipients.user_ids': ['The recipients.user_ids field is required.'],
        'notification.title': ['The notification.title field is required.'],
        'notification.image_url': ['The notification.image_url field must be an absolute https:// URL.'],
        'recipients.filter.and.1.value': ['The recipients.filter.and.1.value field must be a version such as 4.2.'],
        'recipients.filter.and.0.value.2': ['The recipients.filter.and.0.value.2 field must be one of ios, android, web, huawei.'],
        'options.android.color': ['The options.android.color field must be a colour as #RRGGBB.'],
        send_at: ['The send_at field must not be more than 30 days in the future.'],
        'options.throttle_per_minute': ['The options.throttle_per_minute field must be at least 60.'],
        'options.live_activity': ['The options.live_activity field is not allowed.'],
      },
      2,
    );
    expect(placed).toEqual({
      fields: {
        audience: ['The audience is required.'],
        title: ['The title is required.'],
        image_url: ['The image URL must be an absolute https:// URL.'],
        'condition.1': ['The value of condition 2 must be a version such as 4.2.'],
        'condition.0': ['The value (item 3) of condition 1 must be one of ios, android, web, huawei.'],
        'android.color': ['The Android colour must be a colour as #RRGGBB.'],
        send_at: ['The send time must not be more than 30 days in the future.'],
        throttle_per_minute: ['The pace must be at least 60.'],
      },
      other: ['The options.live_activity field is not allowed.'],
    });
  });

  it('turns the recipients rule into a plain request', () => {
    const placed = placeErrors(
      {
        recipients: [
          'Exactly one of recipients.user_ids, recipients.installation_ids, recipients.tags, recipients.filter, recipients.all or recipients.topic is required.',
        ],
      },
      0,
    );
    expect(placed.fields.audience).toEqual(['Choose whom to send to.']);
  });

  it('puts a variant’s paths on that variant’s fields, with or without brackets, and the A/B test’s on its own', () => {
    expect(fieldOfPath('variants', 0)).toBe('variants');
    expect(fieldOfPath('variants.1', 0)).toBe('variant.1');
    expect(fieldOfPath('variants.1.notification.title', 0)).toBe('variant.1.title');
    expect(fieldOfPath('variants[1].notification.title', 0)).toBe('variant.1.title');
    expect(fieldOfPath('variants[0].notification.image_url', 0)).toBe('variant.0.image_url');
    expect(fieldOfPath('variants.0.notification', 0)).toBe('variant.0');
    expect(fieldOfPath('variants.0.notification.localizations.fr.title', 0)).toBe('variant.0');
    expect(fieldOfPath('variants.2.key', 0)).toBe('variant.2.key');
    expect(fieldOfPath('variants.2.weight', 0)).toBe('variant.2.weight');
    expect(fieldOfPath('variants.3.template.key', 0)).toBe('variant.3.template');
    expect(fieldOfPath('variants.3.template.variables.name', 0)).toBe('variant.3.variables');
    expect(fieldOfPath('options.ab_test', 0)).toBe('ab_test');
    expect(fieldOfPath('options.ab_test.sample_percent', 0)).toBe('ab_test.sample_percent');
    expect(fieldOfPath('options.ab_test.winner_after', 0)).toBe('ab_test.winner_after');
    expect(fieldOfPath('options.ab_test.metric', 0)).toBe('ab_test.metric');
    expect(fieldOfPath('options.ab_test.other', 0)).toBe('ab_test');
    expect(fieldName('variant.1.title')).toEqual({ label: 'Title', context: 'of variant 2', words: 'title of variant 2' });
    expect(fieldName('variant.1')).toEqual({ label: 'Variant 2', words: 'variant 2' });
    expect(fieldName('variant.1.nonsense')).toBeUndefined();
  });

  it('says a variant’s and the A/B test’s errors in words a marketer reads', () => {
    const placed = placeErrors(
      {
        'variants[1].notification.title': ['The variants[1].notification.title field is required.'],
        'variants.0.key': ['The variants.0.key field must be 1 to 16 characters of a-z, 0-9 and _.'],
        'variants.0.weight': ['The variants.0.weight field must be at most 100.'],
        'variants.2.template.key': ['The variants.2.template.key field must be a template of this app.'],
        variants: ['The variants field must have at least 2 items.'],
        'options.ab_test.winner_after': ['The options.ab_test.winner_after field must be between 5m and 72h.'],
        'options.ab_test.sample_percent': ['The options.ab_test.sample_percent field must be at most 50.'],
        'options.ab_test': ['The options.ab_test field requires variants.'],
      },
      0,
    );
    expect(placed).toEqual({
      fields: {
        'variant.1.title': ['The title of variant 2 is required.'],
        'variant.0.key': ['The name of variant 1 must be 1 to 16 characters of a-z, 0-9 and _.'],
        'variant.0.weight': ['The weight of variant 1 must be at most 100.'],
        'variant.2.template': ['The template of variant 3 must be a template of this app.'],
        variants: ['The variants must have at least 2 items.'],
        'ab_test.winner_after': ['The waiting time before the winner must be between 5m and 72h.'],
        'ab_test.sample_percent': ['The sample percentage must be at most 50.'],
        ab_test: ['The A/B test requires variants.'],
      },
      other: [],
    });
  });
});
