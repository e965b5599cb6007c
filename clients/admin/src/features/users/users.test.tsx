import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { InboxMessage, Preferences } from '../../api';
import { fakeFetch, renderWithQueries } from '../../testing/render';
import { UserPage, UsersPage } from './UserPage';

const APP = { id: 'a1', name: 'Shop', created_at: '2026-11-24T10:00:00.000Z' };
const PREFERENCES: Preferences = {
  user_id: 'ann',
  topics: { orders: { subscribed: false, source: 'default' }, promotions: { subscribed: false, source: 'user' } },
  channels: { push: false, inbox: true },
};
const message = (id: string, title: string, fields: Partial<InboxMessage> = {}): InboxMessage => ({
  id,
  notification_id: `n-${id}`,
  user_id: 'ann',
  title,
  body: `Body of ${title}`,
  image_url: null,
  action_url: null,
  data: null,
  topic: null,
  created_at: '2026-11-24T10:00:00.000Z',
  read_at: null,
  archived_at: null,
  expires_at: '2027-02-22T10:00:00.000Z',
  ...fields,
});
const INSTALLATION = {
  id: 'i1',
  installation_id: 'ann-phone',
  platform: 'ios',
  user_id: 'ann',
  tags: [],
  device: { model: null, os_version: null, app_version: null, locale: null, timezone: null },
  permission: 'granted',
  invalidated_at: null,
  invalid_reason: null,
  registered_at: '2026-11-24T09:00:00.000Z',
  last_seen_at: '2026-11-24T09:00:00.000Z',
};

afterEach(() => {
  vi.unstubAllGlobals();
  window.history.replaceState(null, '', '/');
});

/** Ann's page, her inbox answered by `state` and `cursor` of the request. */
function open(pages: Record<string, { data: InboxMessage[]; meta: { next_cursor: string | null; unread: number } }>) {
  const calls = fakeFetch({
    'GET /admin/api/apps/a1': () => ({ status: 200, body: { data: APP } }),
    'GET /admin/api/apps/a1/installations': () => ({ status: 200, body: { data: [{ installation: INSTALLATION, notifications: [] }] } }),
    'GET /admin/api/apps/a1/users/ann/preferences': () => ({ status: 200, body: { data: PREFERENCES } }),
    'GET /admin/api/apps/a1/users/ann/inbox': () => {
      const last = calls[calls.length - 1];
      const params = new URL(last.path, 'http://admin.test').searchParams;
      const page = pages[`${params.get('state') ?? 'inbox'}${params.get('cursor') ? `@${params.get('cursor')}` : ''}`];
      return page ? { status: 200, body: page } : { status: 422, body: { message: 'Unexpected page.' } };
    },
  });
  renderWithQueries(<UserPage appId="a1" userId="ann" />);
  return calls;
}

describe('UserPage', () => {
  it("shows the user's installations, preferences and inbox, each from the user's own routes", async () => {
    const calls = open({
      inbox: {
        data: [message('m2', 'Shipped', { topic: 'orders' }), message('m1', 'Welcome', { read_at: '2026-11-24T11:00:00.000Z' })],
        meta: { next_cursor: null, unread: 1 },
      },
    });
    expect(await screen.findByRole('heading', { level: 1, name: 'User ann' })).toBeTruthy();
    expect(await screen.findByRole('heading', { level: 2, name: 'ann-phone' })).toBeTruthy();

    const prefs = await screen.findByRole('table', { name: 'Topic subscriptions' });
    expect(
      within(within(prefs).getByRole('row', { name: /promotions/ }))
        .getAllByRole('cell')
        .map((c) => c.textContent),
    ).toEqual(['no', 'the user’s choice']);
    expect(within(prefs).getByRole('row', { name: /orders/ }).textContent).toContain('the topic’s default');
    const channels = screen.getByText('Push on marketing sends').nextElementSibling;
    expect(channels?.textContent).toBe('off');

    const inbox = await screen.findByRole('region', { name: 'Inbox messages' });
    const shipped = within(inbox).getByRole('row', { name: /Shipped/ });
    expect(within(shipped).getByText('unread').className).toBe('badge badge-unread');
    expect(within(shipped).getByRole('link', { name: 'Shipped' }).getAttribute('href')).toBe('/admin/apps/a1/notifications/n-m2');
    expect(shipped.textContent).toContain('orders');
    expect(within(within(inbox).getByRole('row', { name: /Welcome/ })).getByText('read').className).toBe('badge badge-read');
    expect(screen.getByText('1 unread message')).toBeTruthy();
    // The dashboard only reads: every call a GET, and the user's routes only.
    expect(calls.every((c) => c.method === 'GET')).toBe(true);
    expect(calls.map((c) => c.path)).toEqual(
      expect.arrayContaining([
        '/admin/api/apps/a1/installations?user_id=ann',
        '/admin/api/apps/a1/users/ann/preferences',
        '/admin/api/apps/a1/users/ann/inbox?limit=20',
      ]),
    );
  });

  it('filters the inbox by state and pages through older messages and back', async () => {
    const user = userEvent.setup();
    const calls = open({
      inbox: { data: [message('m3', 'Newest')], meta: { next_cursor: null, unread: 2 } },
      archived: { data: [message('m2', 'Put away', { archived_at: '2026-11-24T12:00:00.000Z' })], meta: { next_cursor: 'c2', unread: 2 } },
      'archived@c2': { data: [message('m1', 'Long ago', { archived_at: '2026-11-24T12:00:00.000Z' })], meta: { next_cursor: null, unread: 2 } },
    });
    expect(await screen.findByRole('row', { name: /Newest/ })).toBeTruthy();
    expect(screen.getByText('2 unread messages')).toBeTruthy();
    await user.selectOptions(screen.getByLabelText('Show'), 'Archived');
    const archived = await screen.findByRole('row', { name: /Put away/ });
    expect(within(archived).getByText('archived').className).toBe('badge badge-archived');
    expect(screen.queryByRole('button', { name: 'Newer messages' })).toBeNull();
    await user.click(screen.getByRole('button', { name: 'Older messages' }));
    expect(await screen.findByRole('row', { name: /Long ago/ })).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Older messages' })).toBeNull();
    expect(calls.map((c) => c.path)).toContain('/admin/api/apps/a1/users/ann/inbox?state=archived&limit=20&cursor=c2');
    await user.click(screen.getByRole('button', { name: 'Newer messages' }));
    expect(await screen.findByRole('row', { name: /Put away/ })).toBeTruthy();
  });

  it('says when the user has no installation, no topic to choose and no message', async () => {
    fakeFetch({
      'GET /admin/api/apps/a1': () => ({ status: 200, body: { data: APP } }),
      'GET /admin/api/apps/a1/installations': () => ({ status: 200, body: { data: [] } }),
      'GET /admin/api/apps/a1/users/nobody/preferences': () => ({
        status: 200,
        body: { data: { user_id: 'nobody', topics: {}, channels: { push: true, inbox: true } } },
      }),
      'GET /admin/api/apps/a1/users/nobody/inbox': () => ({ status: 200, body: { data: [], meta: { next_cursor: null, unread: 0 } } }),
    });
    renderWithQueries(<UserPage appId="a1" userId="nobody" />);
    expect(await screen.findByText('No live installation has this user id.')).toBeTruthy();
    expect(await screen.findByText(/The app has no topic/)).toBeTruthy();
    expect(await screen.findByText('No message here.')).toBeTruthy();
    expect(screen.getByText('0 unread messages')).toBeTruthy();
  });
});

describe('UsersPage', () => {
  it("opens a user's page from a search for their id, encoded in the path", async () => {
    const user = userEvent.setup();
    fakeFetch({ 'GET /admin/api/apps/a1': () => ({ status: 200, body: { data: APP } }) });
    renderWithQueries(<UsersPage appId="a1" />);
    expect(await screen.findByRole('heading', { level: 1, name: 'Users of Shop' })).toBeTruthy();
    await user.type(screen.getByLabelText('User id'), ' ann/42 ');
    await user.click(screen.getByRole('button', { name: 'Open' }));
    await waitFor(() => expect(window.location.pathname).toBe('/admin/apps/a1/users/ann%2F42'));
  });
});
