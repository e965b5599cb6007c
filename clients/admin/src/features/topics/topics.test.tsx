import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type Topic, setCsrfToken } from '../../api';
import { fakeFetch, renderWithQueries } from '../../testing/render';
import { TopicsPage } from './TopicsPage';

const APP = { id: 'a1', name: 'Shop', created_at: '2026-11-24T10:00:00.000Z' };
const topic = (key: string, fields: Partial<Topic> = {}): Topic => ({
  key,
  name: key,
  description: null,
  default: 'subscribed',
  created_at: '2026-11-24T10:00:00.000Z',
  updated_at: '2026-11-24T10:00:00.000Z',
  subscribers: 0,
  ...fields,
});

afterEach(() => {
  vi.unstubAllGlobals();
  setCsrfToken(null);
});

/** The page over a little server of its own: its topics change with PUT and DELETE of `keys`. */
function open(initial: Topic[], refuse?: { status: number; body: unknown }, keys = ['news', 'orders', 'Bad%20Key']) {
  const topics = new Map(initial.map((t) => [t.key, t]));
  const put = (key: string) => (init: RequestInit) => {
    if (refuse) return refuse;
    const body = JSON.parse(init.body as string) as Pick<Topic, 'name' | 'description' | 'default'>;
    const stored = topic(key, { ...body, subscribers: topics.get(key)?.subscribers ?? 0 });
    topics.set(key, stored);
    return { status: 200, body: { data: stored } };
  };
  const remove = (key: string) => () => (topics.delete(key), { status: 204 });
  const calls = fakeFetch({
    'GET /admin/api/apps/a1': () => ({ status: 200, body: { data: APP } }),
    'GET /admin/api/apps/a1/topics': () => ({ status: 200, body: { data: [...topics.values()].sort((a, b) => a.key.localeCompare(b.key)) } }),
    ...Object.fromEntries(
      keys.flatMap((key) => [
        [`PUT /admin/api/apps/a1/topics/${key}`, put(key)],
        [`DELETE /admin/api/apps/a1/topics/${key}`, remove(key)],
      ]),
    ),
  });
  setCsrfToken('csrf-1');
  renderWithQueries(<TopicsPage appId="a1" />);
  return calls;
}

const row = (key: string) => within(screen.getByRole('region', { name: 'Topics table' })).getByRole('row', { name: new RegExp(`^${key}\\b`) });

describe('TopicsPage', () => {
  it('lists the topics with their default and subscribers', async () => {
    open([
      topic('orders', { name: 'Order updates', description: 'Where your parcel is.', default: 'unsubscribed', subscribers: 1 }),
      topic('promotions', { name: 'Promotions', subscribers: 12345 }),
      topic('huge', { subscribers: null }),
    ]);
    expect(await screen.findByRole('heading', { level: 1, name: 'Topics of Shop' })).toBeTruthy();
    await screen.findByRole('region', { name: 'Topics table' });
    expect(row('orders').textContent).toContain('Where your parcel is.');
    expect(row('orders').textContent).toContain('unsubscribed');
    expect(within(row('promotions')).getByText((12345).toLocaleString())).toBeTruthy();
    expect(within(row('huge')).getByTitle('Not counted in time').textContent).toBe('–');
  });

  it('creates a topic, refuses a key that exists, edits and deletes one, sending the CSRF token', async () => {
    const user = userEvent.setup();
    const calls = open([topic('orders', { name: 'Order updates', subscribers: 3 })]);
    await screen.findByRole('region', { name: 'Topics table' });

    // A key that exists is not replaced by the creation form.
    await user.type(screen.getByLabelText('Key'), 'orders');
    await user.type(screen.getByLabelText('Name'), 'Again');
    await user.click(screen.getByRole('button', { name: 'Create topic' }));
    expect(screen.getByText('A topic with the key orders exists: edit it in the list instead.')).toBeTruthy();
    expect(screen.getByLabelText('Key').getAttribute('aria-invalid')).toBe('true');
    expect(calls.filter((c) => c.method === 'PUT')).toHaveLength(0);

    await user.clear(screen.getByLabelText('Key'));
    await user.type(screen.getByLabelText('Key'), 'news');
    await user.clear(screen.getByLabelText('Name'));
    await user.type(screen.getByLabelText('Name'), 'Breaking news');
    await user.type(screen.getByLabelText('Description (optional)'), 'Rarely.');
    await user.click(screen.getByLabelText('unsubscribed'));
    await user.click(screen.getByRole('button', { name: 'Create topic' }));
    expect(await screen.findByText('Topic news saved.')).toBeTruthy();
    await waitFor(() => expect(row('news').textContent).toContain('Breaking news'));
    const put = calls.find((c) => c.method === 'PUT')!;
    expect(put.path).toBe('/admin/api/apps/a1/topics/news');
    expect(JSON.parse(put.init.body as string)).toEqual({ name: 'Breaking news', description: 'Rarely.', default: 'unsubscribed' });
    expect((put.init.headers as Record<string, string>)['x-csrf-token']).toBe('csrf-1');

    // Edit: the form takes the topic, its key fixed.
    await user.click(within(row('orders')).getByRole('button', { name: 'Edit orders' }));
    expect(screen.getByRole('heading', { level: 2, name: 'Edit topic orders' })).toBeTruthy();
    expect(screen.getByLabelText<HTMLInputElement>('Key').disabled).toBe(true);
    expect(screen.getByLabelText<HTMLInputElement>('Name').value).toBe('Order updates');
    await user.clear(screen.getByLabelText('Name'));
    await user.type(screen.getByLabelText('Name'), 'Your orders');
    await user.click(screen.getByRole('button', { name: 'Save changes' }));
    await waitFor(() => expect(row('orders').textContent).toContain('Your orders'));
    expect(JSON.parse(calls.filter((c) => c.method === 'PUT')[1].init.body as string)).toEqual({
      name: 'Your orders',
      description: null,
      default: 'subscribed',
    });
    expect(screen.getByRole('heading', { level: 2, name: 'New topic' })).toBeTruthy();

    // Delete asks first; keeping it sends nothing.
    await user.click(within(row('news')).getByRole('button', { name: 'Delete news' }));
    await user.click(within(row('news')).getByRole('button', { name: 'Keep it' }));
    expect(calls.filter((c) => c.method === 'DELETE')).toHaveLength(0);
    await user.click(within(row('news')).getByRole('button', { name: 'Delete news' }));
    await user.click(within(row('news')).getByRole('button', { name: 'Delete news' }));
    expect(await screen.findByText('Topic news deleted.')).toBeTruthy();
    await waitFor(() => expect(within(screen.getByRole('region', { name: 'Topics table' })).queryByRole('row', { name: /^news\b/ })).toBeNull());
    const del = calls.find((c) => c.method === 'DELETE')!;
    expect(del.path).toBe('/admin/api/apps/a1/topics/news');
    expect((del.init.headers as Record<string, string>)['x-csrf-token']).toBe('csrf-1');
  });

  it("shows the server's 422 next to its fields", async () => {
    const user = userEvent.setup();
    open([], {
      status: 422,
      body: {
        message: 'The given data was invalid.',
        errors: { key: ['The key must be 1 to 64 of a-z 0-9 _ -.'], name: ['The name field is required.'], body: ['Something else.'] },
      },
    });
    expect(await screen.findByText('No topic yet.')).toBeTruthy();
    await user.type(screen.getByLabelText('Key'), 'Bad Key');
    await user.click(screen.getByRole('button', { name: 'Create topic' }));
    expect(await screen.findByText('The key must be 1 to 64 of a-z 0-9 _ -.')).toBeTruthy();
    expect(screen.getByText('The name field is required.').id).toBe('topic-name-error');
    expect(screen.getByLabelText('Name').getAttribute('aria-describedby')).toBe('topic-name-error');
    expect(screen.getByRole('alert').textContent).toBe('Something else.');
  });
});
