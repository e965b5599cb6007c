import { describe, expect, it } from 'vitest';
import { fieldOfPath, placeErrors } from './errors';

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
});
