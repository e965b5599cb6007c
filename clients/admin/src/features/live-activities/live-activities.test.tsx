import { screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { LiveActivities } from '../../api';
import { fakeFetch, renderWithQueries } from '../../testing/render';
import { LiveActivitiesPage } from './LiveActivitiesPage';

const APP = { id: 'a1', name: 'Shop', created_at: '2026-11-24T10:00:00.000Z' };
const ACTIVITY = {
  installation_id: 'iphone-1',
  attributes_type: 'DeliveryAttributes',
  created_at: '2026-11-24T10:00:00.000Z',
  updated_at: '2026-11-24T10:05:00.000Z',
  ended_at: null,
  invalid_reason: null,
};
const FULL: LiveActivities = {
  activities: [
    {
      ...ACTIVITY,
      activity_id: 'order-2',
      status: 'ended',
      ended_at: '2026-11-24T10:06:00.000Z',
      invalid_reason: 'Unregistered',
      last_update: {
        id: 'u2',
        seq: 12,
        event: 'update',
        status: 'failed',
        reason: 'Unregistered',
        created_at: '2026-11-24T10:05:00.000Z',
        updated_at: '2026-11-24T10:06:00.000Z',
      },
    },
    { ...ACTIVITY, activity_id: 'order-1', status: 'active', last_update: null },
  ],
  channels: [
    {
      id: 'dHN0LXNyY2gtY2hubA==',
      storage: 'most_recent',
      created_at: '2026-11-24T09:00:00.000Z',
      last_broadcast: {
        id: 'b1',
        channel_id: 'dHN0LXNyY2gtY2hubA==',
        event: 'end',
        status: 'pending',
        reason: 'TooManyRequests',
        attempts: 2,
        created_at: '2026-11-24T10:07:00.000Z',
      },
    },
    { id: 'cXVpZXQtY2hhbm5lbA==', storage: 'none', created_at: '2026-11-24T08:00:00.000Z', last_broadcast: null },
  ],
  limit: 100,
};

function open(data: LiveActivities) {
  const calls = fakeFetch({
    'GET /admin/api/apps/a1': () => ({ status: 200, body: { data: APP } }),
    'GET /admin/api/apps/a1/live-activities': () => ({ status: 200, body: { data } }),
  });
  renderWithQueries(<LiveActivitiesPage appId="a1" />);
  return calls;
}

describe('LiveActivitiesPage', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('lists the activities with their last update, and the channels', async () => {
    const calls = open(FULL);
    expect(await screen.findByRole('heading', { level: 1, name: 'Live Activities of Shop' })).toBeTruthy();
    const activities = await screen.findByRole('region', { name: 'Live Activities table' });
    const ended = within(activities).getByRole('row', { name: /order-2/ });
    expect(ended.textContent).toContain('iphone-1');
    expect(ended.textContent).toContain('DeliveryAttributes');
    expect(within(ended).getAllByText('Unregistered')).toHaveLength(1);
    expect(within(ended).getByText('ended').className).toBe('badge badge-ended');
    expect(within(ended).getByText('failed').className).toBe('badge badge-failed');
    expect(within(ended).getByText('12')).toBeTruthy();
    expect(within(ended).getByText('update')).toBeTruthy();
    const fresh = within(activities).getByRole('row', { name: /order-1/ });
    expect(within(fresh).getByText('active').className).toBe('badge badge-active');
    expect(within(fresh).getByText('no update yet')).toBeTruthy();

    const channels = screen.getByRole('region', { name: 'Broadcast channels table' });
    const broadcasting = within(channels).getByRole('row', { name: /dHN0LXNyY2gtY2hubA==/ });
    expect(broadcasting.textContent).toContain('most recent message');
    expect(within(broadcasting).getByText('end')).toBeTruthy();
    expect(within(broadcasting).getByText('pending').className).toBe('badge badge-pending');
    expect(within(broadcasting).getByText('TooManyRequests')).toBeTruthy();
    expect(within(within(channels).getByRole('row', { name: /cXVpZXQtY2hhbm5lbA==/ })).getByText('no broadcast yet')).toBeTruthy();
    expect(screen.queryByText(/The newest/)).toBeNull();
    expect(calls.map((c) => c.path)).toContain('/admin/api/apps/a1/live-activities');
  });

  it('says when there are none, and when only the newest are listed', async () => {
    open({ activities: [], channels: [], limit: 100 });
    expect(await screen.findByText('No Live Activity yet.')).toBeTruthy();
    expect(screen.getByText('No broadcast channel.')).toBeTruthy();
    expect(screen.queryByRole('table')).toBeNull();
  });

  it('says the list is cut at the limit', async () => {
    open({ ...FULL, limit: 2 });
    expect(await screen.findByText('The newest 2.')).toBeTruthy();
  });
});
