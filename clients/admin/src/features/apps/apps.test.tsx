import { render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { match } from '../../router';
import { AppsTable } from './AppsPage';

describe('AppsTable', () => {
  it('lists each app with counts, the providers it has (no secret) and a link', () => {
    render(
      <AppsTable
        apps={[
          {
            id: 'a1',
            name: 'Shop',
            created_at: '2026-11-24T10:00:00.000Z',
            installations: { ios: 1200, android: 34567, web: 0, huawei: 4321, total: 40088 },
            credentials: {
              apns: { key_id: 'ABC123DEFG', team_id: 'TEAM123456', topic: 'com.shop', production: true },
              fcm: null,
              web_push: null,
              hms: { app_id: '107001234', client_id: '107001234' },
            },
            notifications_24h: 1001,
            settings: { frequency_cap: { max: 3, hours: 24 }, quiet_hours: { start: '22:00', end: '07:00' }, identity_verification: false, inbox_days: 30 },
          },
        ]}
      />,
    );
    const row = screen.getByRole('row', { name: /Shop/ });
    expect(row.textContent).toContain('34,567');
    expect(row.textContent).toContain('4,321');
    expect(row.textContent).toContain('40,088');
    expect(row.textContent).toContain('1,001');
    expect(row.textContent).toContain('APNs: com.shop (production, key ABC123DEFG)');
    expect(row.textContent).toContain('FCM: not configured');
    expect(row.textContent).toContain('Huawei Push Kit: app 107001234, client 107001234');
    expect(row.textContent).toContain('Frequency cap: 3 marketing per 24 h');
    expect(row.textContent).toContain('Inbox kept: 30 days');
    expect(row.textContent).toContain('Quiet hours: 22:00–07:00, device time');
    expect(row.textContent).toContain('Identity verification: off');
    expect(screen.getByRole('link', { name: 'Shop' }).getAttribute('href')).toBe('/admin/apps/a1');
  });
});

describe('match', () => {
  it('reads route parameters', () => {
    expect(match('/apps/:app/notifications/:id', '/apps/a%201/notifications/n1')).toEqual({ app: 'a 1', id: 'n1' });
    expect(match('/apps/:app', '/apps/a1/send')).toBeNull();
  });
});
