import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { setCsrfToken } from '../../api';
import { fakeFetch, renderWithQueries } from '../../testing/render';
import { NotificationPage } from './NotificationPage';
import { NotificationsPage } from './NotificationsPage';
import { Trace } from './Trace';

const APP = '6f1c2b1e-0000-4000-8000-000000000001';
const ID = '6f1c2b1e-0000-4000-8000-0000000000aa';

const notification = (fields: Record<string, unknown> = {}) => ({
  id: ID,
  notification: { title: 'Spring sale', body: 'Everything half price', image_url: null, action_url: null, localizations: { fr: { title: 'Soldes' } } },
  data: null,
  options: { ttl: 3600 },
  target_users: 1500,
  statistics: {
    users: 1500,
    installations: 12345,
    accepted: 12000,
    received: 9000,
    displayed: 6000,
    opened: 1200,
    failed: 300,
    skipped: 45,
    inbox_stored: 0,
    inbox_read: 0,
  },
  created_at: '2026-11-24T10:00:00.000Z',
  processing_started_at: '2026-11-24T10:00:01.000Z',
  completed_at: null,
  send_at: null,
  canceled_at: null,
  failure_reason: null,
  status: 'sending',
  outcome: null,
  cancelable: true,
  target: { kind: 'user_ids', users: 1500, tags: null },
  minutes: [{ minute: '2026-11-24T10:00:00.000Z', accepted: 12000, failed: 300, skipped: 45, retried: 7 }],
  ...fields,
});

afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
  setCsrfToken(null);
});

describe('NotificationPage', () => {
  it('shows the content, the numbers with thousands separators and rates, and the funnel table', async () => {
    fakeFetch({
      [`GET /admin/api/apps/${APP}/notifications/${ID}`]: () => ({ status: 200, body: { data: notification() } }),
      [`GET /admin/api/apps/${APP}/notifications/${ID}/deliveries`]: () => ({ status: 200, body: { data: [], meta: { next_cursor: null } } }),
    });
    renderWithQueries(<NotificationPage appId={APP} id={ID} />);
    expect(await screen.findByRole('heading', { level: 1, name: 'Spring sale' })).toBeTruthy();
    const installations = screen.getByText('Installations').closest('.figure') as HTMLElement;
    expect(within(installations).getByText('12,345')).toBeTruthy();
    const opened = screen.getByText('Opened').closest('.figure') as HTMLElement;
    expect(within(opened).getByText('10%')).toBeTruthy();
    expect(screen.getByRole('row', { name: /fr Soldes/ })).toBeTruthy();
    expect(screen.getByRole('img', { name: /Funnel/ })).toBeTruthy();
    const funnelTable = screen.getByText('Numbers of “Funnel”').closest('details') as HTMLElement;
    expect(within(funnelTable).getByRole('row', { name: 'opened 1,200' })).toBeTruthy();
    expect(screen.queryByText('Inbox stored')).toBeNull();
  });

  it('shows the inbox figures of a send with the inbox channel (docs/api.md#inbox)', async () => {
    const inboxSend = notification({
      options: { channels: ['push', 'inbox'] },
      statistics: { ...notification().statistics, inbox_stored: 1500, inbox_read: 300 },
    });
    fakeFetch({
      [`GET /admin/api/apps/${APP}/notifications/${ID}`]: () => ({ status: 200, body: { data: inboxSend } }),
      [`GET /admin/api/apps/${APP}/notifications/${ID}/deliveries`]: () => ({ status: 200, body: { data: [], meta: { next_cursor: null } } }),
    });
    renderWithQueries(<NotificationPage appId={APP} id={ID} />);
    const stored = (await screen.findByText('Inbox stored')).closest('.figure') as HTMLElement;
    expect(within(stored).getByText('1,500')).toBeTruthy();
    const read = screen.getByText('Inbox read').closest('.figure') as HTMLElement;
    expect(within(read).getByText('300')).toBeTruthy();
    expect(within(read).getByText('20%')).toBeTruthy();
  });

  it('shows the options that were set, the platform objects key by key and web buttons; a silent send has no title', async () => {
    const options = {
      content_available: true,
      badge_increment: 1,
      apns: { interruption_level: 'time-sensitive', thread_id: 'ride-42' },
      android: { channel_id: 'rides', visibility: 'public' },
      web: {
        tag: 'parcel-42',
        actions: [
          { action: 'track', title: 'Track parcel', url: 'https://shop.example.com/track/42' },
          { action: 'later', title: 'Later' },
        ],
      },
    };
    fakeFetch({
      [`GET /admin/api/apps/${APP}/notifications/${ID}`]: () => ({
        status: 200,
        body: { data: notification({ options, notification: { title: null, body: null, image_url: null, action_url: null, localizations: null } }) },
      }),
      [`GET /admin/api/apps/${APP}/notifications/${ID}/deliveries`]: () => ({ status: 200, body: { data: [], meta: { next_cursor: null } } }),
    });
    renderWithQueries(<NotificationPage appId={APP} id={ID} />);
    expect(await screen.findByRole('heading', { level: 1, name: 'Silent send (no notification shown)' })).toBeTruthy();
    const pair = (list: HTMLElement, name: string) => within(list).getByText(name, { selector: 'dt' }).nextElementSibling!.textContent;
    const schedule = screen.getByRole('heading', { name: 'Options and schedule' }).closest('section') as HTMLElement;
    expect(pair(schedule, 'content_available')).toBe('true');
    expect(pair(schedule, 'badge_increment')).toBe('1');
    const apns = screen.getByRole('group', { name: 'apns options' });
    expect([pair(apns, 'interruption_level'), pair(apns, 'thread_id')]).toEqual(['time-sensitive', 'ride-42']);
    expect(pair(screen.getByRole('group', { name: 'android options' }), 'visibility')).toBe('public');
    expect(pair(screen.getByRole('group', { name: 'web options' }), 'actions')).toBe('Track parcel (track) → https://shop.example.com/track/42, Later (later)');
  });

  it.each([
    ['delivered', 'completed', 'badge-outcome-delivered'],
    ['partly_failed', 'completed with failures', 'badge-outcome-partly_failed'],
    ['failed', 'all failed', 'badge-outcome-failed'],
    ['nothing_sent', 'nothing sent', 'badge-outcome-nothing_sent'],
  ])('says how a completed send went (%s): %s, not the green of a full success unless it is one (issue 31 item 11)', async (outcome, label, style) => {
    fakeFetch({
      [`GET /admin/api/apps/${APP}/notifications/${ID}`]: () => ({
        status: 200,
        body: { data: notification({ status: 'completed', outcome, cancelable: false, completed_at: '2026-11-24T10:05:00.000Z' }) },
      }),
      [`GET /admin/api/apps/${APP}/notifications/${ID}/deliveries`]: () => ({ status: 200, body: { data: [], meta: { next_cursor: null } } }),
    });
    renderWithQueries(<NotificationPage appId={APP} id={ID} />);
    const badge = await screen.findByText(label, { selector: '.badge' });
    expect(badge.className).toBe(`badge ${style}`);
  });

  it('says why a send failed before any delivery: a filter whose audience timed out (issue 51 item 1)', async () => {
    const stats = { users: 0, installations: 0, accepted: 0, received: 0, displayed: 0, opened: 0, failed: 0, skipped: 0 };
    fakeFetch({
      [`GET /admin/api/apps/${APP}/notifications/${ID}`]: () => ({
        status: 200,
        body: {
          data: notification({
            status: 'completed',
            outcome: 'failed',
            cancelable: false,
            statistics: stats,
            completed_at: '2026-11-24T10:00:11.000Z',
            failure_reason: 'AudienceTimedOut',
          }),
        },
      }),
      [`GET /admin/api/apps/${APP}/notifications/${ID}/deliveries`]: () => ({ status: 200, body: { data: [], meta: { next_cursor: null } } }),
    });
    renderWithQueries(<NotificationPage appId={APP} id={ID} />);
    expect(await screen.findByText('all failed', { selector: '.badge' })).toBeTruthy();
    const failed = screen.getByText('Failed before any delivery', { selector: 'dt' }).nextElementSibling!;
    expect(failed.textContent).toMatch(/^AudienceTimedOutThe filter’s audience took longer than AUDIENCE_STATEMENT_TIMEOUT_MS/);
  });

  it('shows the variants with their statistics and the A/B test’s phase and winner (docs/api.md#variants)', async () => {
    const stats = (installations: number, accepted: number, displayed: number, opened: number) => ({
      ...notification().statistics,
      installations,
      accepted,
      displayed,
      opened,
    });
    const abSend = notification({
      notification: null,
      options: { ab_test: { sample_percent: 10, winner_after: '4h', metric: 'opened' } },
      variants: [
        { key: 'short', weight: 70, statistics: stats(700, 690, 400, 138) },
        { key: 'long', weight: 30, statistics: stats(300, 300, 150, 30) },
      ],
      ab_test: { phase: 'sample', winner: null, decided_at: null },
    });
    let current: unknown = abSend;
    fakeFetch({
      [`GET /admin/api/apps/${APP}/notifications/${ID}`]: () => ({ status: 200, body: { data: current } }),
      [`GET /admin/api/apps/${APP}/notifications/${ID}/deliveries`]: () => ({ status: 200, body: { data: [], meta: { next_cursor: null } } }),
    });
    const { unmount } = renderWithQueries(<NotificationPage appId={APP} id={ID} />);
    // No texts of its own: named by its variants.
    expect(await screen.findByRole('heading', { level: 1, name: 'Variants short, long' })).toBeTruthy();
    const section = screen.getByRole('region', { name: 'Variants' });
    expect(within(section).getByText('sample').className).toContain('badge');
    expect(within(section).getByText('not picked yet')).toBeTruthy();
    const cells = (key: string) =>
      within(within(section).getByRole('row', { name: new RegExp(`^${key} `) }))
        .getAllByRole('cell')
        .map((c) => c.textContent);
    expect(cells('short')).toEqual(['70 (70%)', '700', '690', '400 (58%)', '138 (20%)']);
    expect(cells('long')).toEqual(['30 (30%)', '300', '300', '150 (50%)', '30 (10%)']);
    unmount();

    current = { ...abSend, ab_test: { phase: 'done', winner: 'short', decided_at: '2026-11-24T14:00:00.000Z' } };
    renderWithQueries(<NotificationPage appId={APP} id={ID} />);
    const done = await screen.findByRole('region', { name: 'Variants' });
    expect(within(done).getByText('done')).toBeTruthy();
    expect(within(done).getByRole('row', { name: /^short ?winner / })).toBeTruthy();
    expect(done.querySelector('time')!.getAttribute('datetime')).toBe('2026-11-24T14:00:00.000Z');
  });

  it('has no variants section for a send without them, old or new server', async () => {
    for (const data of [notification(), notification({ variants: null, ab_test: null })]) {
      fakeFetch({
        [`GET /admin/api/apps/${APP}/notifications/${ID}`]: () => ({ status: 200, body: { data } }),
        [`GET /admin/api/apps/${APP}/notifications/${ID}/deliveries`]: () => ({ status: 200, body: { data: [], meta: { next_cursor: null } } }),
      });
      const { unmount } = renderWithQueries(<NotificationPage appId={APP} id={ID} />);
      expect(await screen.findByRole('heading', { level: 1, name: 'Spring sale' })).toBeTruthy();
      expect(screen.queryByRole('region', { name: 'Variants' })).toBeNull();
      unmount();
    }
  });

  it('cancels after confirmation, sending the CSRF token', async () => {
    setCsrfToken('csrf-123');
    let canceled = false;
    const calls = fakeFetch({
      [`GET /admin/api/apps/${APP}/notifications/${ID}`]: () => ({
        status: 200,
        body: { data: notification(canceled ? { status: 'canceled', cancelable: false, canceled_at: '2026-11-24T10:01:00.000Z' } : {}) },
      }),
      [`POST /admin/api/apps/${APP}/notifications/${ID}/cancel`]: () => {
        canceled = true;
        return { status: 200, body: { data: notification({ status: 'canceled', cancelable: false }) } };
      },
    });
    vi.spyOn(window, 'confirm').mockReturnValue(true);
    renderWithQueries(<NotificationPage appId={APP} id={ID} />);
    await userEvent.click(await screen.findByRole('button', { name: 'Cancel notification' }));
    await waitFor(() => expect(screen.getByText('canceled')).toBeTruthy());
    expect(screen.queryByRole('button', { name: 'Cancel notification' })).toBeNull();
    const cancel = calls.find((c) => c.method === 'POST')!;
    expect((cancel.init.headers as Record<string, string>)['x-csrf-token']).toBe('csrf-123');
  });
});

describe('NotificationsPage (issue 31 item 11)', () => {
  afterEach(() => window.history.replaceState(null, '', '/'));

  it('shows accepted, failed, skipped and send_at, says where the page is, and jumps to a date', async () => {
    window.history.replaceState(null, '', `/admin/apps/${APP}`);
    const older = notification({
      id: '6f1c2b1e-0000-4000-8000-0000000000bb',
      dry_run: true,
      notification: { title: 'All failed', body: 'b', image_url: null, action_url: null, localizations: null },
      status: 'completed',
      outcome: 'failed',
      created_at: '2026-11-20T08:00:00.000Z',
      statistics: { users: 2, installations: 2, accepted: 0, received: 0, displayed: 0, opened: 0, failed: 2, skipped: 0, inbox_stored: 0, inbox_read: 0 },
    });
    const scheduled = notification({ status: 'scheduled', send_at: '2026-11-25T09:00:00.000Z', created_at: '2026-11-24T10:00:00.000Z' });
    const calls = fakeFetch({
      [`GET /admin/api/apps/${APP}`]: () => ({ status: 200, body: { data: { id: APP, name: 'Shop', created_at: '2026-11-24T10:00:00.000Z' } } }),
      [`GET /admin/api/apps/${APP}/notifications`]: () => ({ status: 200, body: { data: [scheduled, older], meta: { next_cursor: 'next-page' } } }),
    });
    renderWithQueries(<NotificationsPage appId={APP} />);
    const failedRow = await screen.findByRole('row', { name: /All failed/ });
    expect(within(failedRow).getByText('all failed', { selector: '.badge' })).toBeTruthy();
    // Issue 54 item 7: a dry run is labelled in the list; the other send is not.
    expect(within(failedRow).getByText('dry run', { selector: '.badge' })).toBeTruthy();
    expect(within(screen.getByRole('row', { name: /Spring sale/ })).queryByText('dry run')).toBeNull();
    // Times name their zone (issue 54 item 7): "…, 9:00:00 AM UTC" in the test's zone.
    expect(within(failedRow).getAllByRole('cell')[0].textContent).toMatch(/\d{1,2}:\d{2}:\d{2}\s?[AP]M [A-Z]{3}|GMT|UTC/);
    // On a phone the outcomes are one line beside the status (styles.css, table.notification-list).
    expect(within(failedRow).getByText('0 accepted · 2 failed · 0 skipped')).toBeTruthy();
    expect(
      within(failedRow)
        .getAllByRole('cell')
        .map((cell) => cell.textContent)
        .slice(1, 7),
    ).toEqual(['at once', '1,500 users', 'all failed', '0', '2', '0']);
    const scheduledRow = screen.getByRole('row', { name: /Spring sale/ });
    expect(within(scheduledRow).getAllByRole('cell')[1].querySelector('time')!.getAttribute('datetime')).toBe('2026-11-25T09:00:00.000Z');
    expect(screen.getAllByRole('columnheader').map((th) => th.textContent)).toEqual([
      'Title',
      'Created',
      'Send at',
      'Target',
      'Status',
      'Accepted',
      'Failed',
      'Skipped',
      'Funnel (share of accepted)',
    ]);
    const pages = screen.getByRole('navigation', { name: 'Pages' });
    expect(within(pages).getByText(/^Page 1: notifications 1–2, created/)).toBeTruthy();
    expect(within(pages).getByRole('link', { name: 'Older' }).getAttribute('href')).toBe(`/admin/apps/${APP}?cursor=next-page&page=2`);

    await userEvent.type(screen.getByLabelText('Created on or before'), '2026-11-21');
    await userEvent.click(screen.getByRole('button', { name: 'Go' }));
    const before = new Date(2026, 10, 22).toISOString();
    expect(new URLSearchParams(window.location.search).get('before')).toBe(before);
    const lists = () => calls.filter((c) => c.path.startsWith(`/admin/api/apps/${APP}/notifications`)).map((c) => c.path);
    expect(lists()[0]).toBe(`/admin/api/apps/${APP}/notifications?limit=20`);
    await waitFor(() => expect(lists()).toContain(`/admin/api/apps/${APP}/notifications?before=${encodeURIComponent(before)}&limit=20`));
    expect(await within(screen.getByRole('navigation', { name: 'Pages' })).findByText(/^Page 1 from .* back: notifications 1–2/)).toBeTruthy();
  });
});

describe('Trace', () => {
  const delivery = (n: number, status: string, reason: string | null) => ({
    installation_id: `inst-${n}`,
    user_id: `user-${n}`,
    platform: 'ios',
    status,
    reason,
    attempts: 1,
    provider_message_id: null,
    scheduled_for: null,
    next_attempt_at: null,
    localization: null,
    updated_at: '2026-11-24T10:00:00.000Z',
    received_at: null,
    displayed_at: null,
    opened_at: null,
  });

  it('shows when each delivery is due, its next retry, the localization it got and what each reason means (issue 31 item 12)', async () => {
    fakeFetch({
      [`GET /admin/api/apps/${APP}/notifications/${ID}/deliveries`]: () => ({
        status: 200,
        body: {
          data: [
            { ...delivery(1, 'pending', 'ServiceUnavailable'), attempts: 2, next_attempt_at: '2026-11-24T10:05:00.000Z', localization: 'fr' },
            { ...delivery(2, 'scheduled', null), scheduled_for: '2026-11-25T08:00:00.000Z', next_attempt_at: '2026-11-25T08:00:00.000Z' },
            delivery(3, 'skipped', 'PermissionDenied'),
            delivery(4, 'pending', 'ENOTFOUND api.push.apple.com'),
            delivery(5, 'failed', 'NoSuchWordAnywhere'),
            { ...delivery(6, 'accepted', null), provider_message_id: 'projects/demo/messages/0:1700000000000000%abc' },
          ],
          meta: { next_cursor: null },
        },
      }),
    });
    renderWithQueries(<Trace appId={APP} id={ID} live={false} />);
    const headers = (await screen.findAllByRole('columnheader')).map((th) => th.textContent);
    expect(headers).toEqual(expect.arrayContaining(['Scheduled for', 'Next attempt', 'Localization']));
    const cell = (row: HTMLElement, header: string) => within(row).getAllByRole('cell')[headers.indexOf(header) - 1];
    const retry = screen.getByRole('row', { name: /^inst-1 / });
    expect(cell(retry, 'Next attempt').querySelector('time')!.getAttribute('datetime')).toBe('2026-11-24T10:05:00.000Z');
    expect(cell(retry, 'Localization').textContent).toBe('fr');
    expect(cell(retry, 'Reason').textContent).toBe('ServiceUnavailableThe push service was unavailable; the delivery is retried later.');
    const waiting = screen.getByRole('row', { name: /^inst-2 / });
    expect(cell(waiting, 'Scheduled for').querySelector('time')!.getAttribute('datetime')).toBe('2026-11-25T08:00:00.000Z');
    expect(cell(waiting, 'Localization').textContent).toBe('default');
    const denied = screen.getByRole('row', { name: /^inst-3 / });
    expect(cell(denied, 'Reason').textContent).toBe('PermissionDeniedThe installation reported that the user turned notifications off.');
    // A transport error is explained by its first word; an unknown word stands alone.
    expect(cell(screen.getByRole('row', { name: /^inst-4 / }), 'Reason').textContent).toMatch(
      /^ENOTFOUND api\.push\.apple\.comThe push service’s host name did not resolve/,
    );
    expect(cell(screen.getByRole('row', { name: /^inst-5 / }), 'Reason').textContent).toBe('NoSuchWordAnywhere');
    // The provider's id of an accepted message, for a support ticket (docs/api.md#provider-message-ids).
    expect(cell(screen.getByRole('row', { name: /^inst-6 / }), 'Provider message id').textContent).toBe('projects/demo/messages/0:1700000000000000%abc');
    expect(cell(denied, 'Provider message id').textContent).toBe('–');
  });

  it('shows each delivery’s variant in a column of its own, only when the send has variants', async () => {
    fakeFetch({
      [`GET /admin/api/apps/${APP}/notifications/${ID}/deliveries`]: () => ({
        status: 200,
        body: {
          data: [
            { ...delivery(1, 'accepted', null), variant: 'short' },
            { ...delivery(2, 'accepted', null), variant: 'long' },
          ],
          meta: { next_cursor: null },
        },
      }),
    });
    const { unmount } = renderWithQueries(<Trace appId={APP} id={ID} live={false} />);
    const headers = (await screen.findAllByRole('columnheader')).map((th) => th.textContent);
    expect(headers.slice(0, 5)).toEqual(['Installation', 'User', 'Platform', 'Variant', 'Status']);
    expect(within(screen.getByRole('row', { name: /^inst-2 / })).getAllByRole('cell')[2].textContent).toBe('long');
    unmount();
    fakeFetch({
      [`GET /admin/api/apps/${APP}/notifications/${ID}/deliveries`]: () => ({
        status: 200,
        body: { data: [delivery(1, 'accepted', null)], meta: { next_cursor: null } },
      }),
    });
    renderWithQueries(<Trace appId={APP} id={ID} live={false} />);
    expect((await screen.findAllByRole('columnheader')).map((th) => th.textContent)).not.toContain('Variant');
  });

  it('filters by status and reason, and looks further while a filtered page comes back empty', async () => {
    const calls = fakeFetch({
      [`GET /admin/api/apps/${APP}/notifications/${ID}/deliveries`]: () => {
        const url = new URL(String(calls.at(-1)!.path), 'http://admin.test');
        const params = url.searchParams;
        if (!params.get('status'))
          return { status: 200, body: { data: [delivery(1, 'accepted', null), delivery(2, 'failed', 'BadDeviceToken')], meta: { next_cursor: null } } };
        // A bounded scan found nothing in its first stretch; the second has the match.
        if (!params.get('cursor')) return { status: 200, body: { data: [], meta: { next_cursor: 'c1' } } };
        return { status: 200, body: { data: [delivery(2, 'failed', 'BadDeviceToken')], meta: { next_cursor: null } } };
      },
    });
    renderWithQueries(<Trace appId={APP} id={ID} live={false} />);
    expect(await screen.findByText('2 deliveries shown.')).toBeTruthy();
    await userEvent.selectOptions(screen.getByLabelText('Status'), 'failed');
    await userEvent.type(screen.getByLabelText('Reason'), 'BadDeviceToken');
    await userEvent.click(screen.getByRole('button', { name: 'Filter' }));
    expect(await screen.findByText('0 deliveries shown with status failed and reason BadDeviceToken, more to look at.')).toBeTruthy();
    await userEvent.click(screen.getByRole('button', { name: 'Look further' }));
    expect(await screen.findByText('1 delivery shown with status failed and reason BadDeviceToken.')).toBeTruthy();
    expect(screen.getByRole('row', { name: /inst-2 user-2 ios failed BadDeviceToken/ })).toBeTruthy();
    expect(calls.map((c) => c.path).slice(1)).toEqual([
      `/admin/api/apps/${APP}/notifications/${ID}/deliveries?status=failed&reason=BadDeviceToken&limit=50`,
      `/admin/api/apps/${APP}/notifications/${ID}/deliveries?status=failed&reason=BadDeviceToken&cursor=c1&limit=50`,
    ]);
  });
});
