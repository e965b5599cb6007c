import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { setCsrfToken } from '../../api';
import { fakeFetch, renderWithQueries } from '../../testing/render';
import { ComposerPage } from './ComposerPage';

const APP = '11111111-1111-4111-8111-111111111111';
const count = (installations: number) => ({
  status: 200,
  body: {
    data: { installations, sendable: installations - 1, users: Math.ceil(installations / 2), platforms: { ios: installations, android: 0, web: 0, huawei: 0 } },
  },
});
/** The count is asked a moment after the last change: longer than waitFor's default on a busy machine. */
const SETTLED = { timeout: 10_000 };
const appRoutes = {
  [`GET /admin/api/apps/${APP}`]: () => ({ status: 200, body: { data: { id: APP, name: 'Shop', created_at: '2026-11-24T10:00:00.000Z' } } }),
  [`GET /admin/api/apps/${APP}/topics`]: () => ({ status: 200, body: { data: [] } }),
  [`GET /admin/api/apps/${APP}/templates`]: () => ({
    status: 200,
    body: {
      data: [
        {
          key: 'order_shipped',
          name: 'Order shipped',
          notification: { title: 'Hi {{ vars.first_name }}', body: 'On its way', image_url: null, action_url: null },
          localizations: null,
          data: null,
          version: 2,
          created_at: '2026-11-24T10:00:00.000Z',
          updated_at: '2026-11-25T10:00:00.000Z',
        },
      ],
      meta: { next_cursor: null },
    },
  }),
};

afterEach(() => {
  vi.unstubAllGlobals();
  setCsrfToken(null);
});

// A page of many fields, typed into key by key: slow on a busy machine, not stuck.
describe('ComposerPage', { timeout: 60_000 }, () => {
  it('builds a filter with controls, counts it, and asks to confirm above 1,000 before sending', async () => {
    const counted: unknown[] = [];
    let sent: unknown;
    fakeFetch({
      ...appRoutes,
      [`POST /admin/api/apps/${APP}/audiences/count`]: (init) => {
        const { recipients } = JSON.parse(init.body as string) as { recipients: unknown };
        counted.push(recipients);
        return count('all' in (recipients as object) ? 5000 : 1500);
      },
      [`POST /admin/api/apps/${APP}/notifications`]: (init) => {
        sent = JSON.parse(init.body as string);
        return { status: 500, body: { message: 'Server Error.' } };
      },
    });
    renderWithQueries(<ComposerPage appId={APP} />);
    const status = screen.getByRole('status', { name: 'Audience count' });
    await waitFor(() => expect(status.textContent).toMatch(/^5,000 installations · 4,999 can receive it · 2,500 users/), SETTLED);
    await userEvent.click(screen.getByRole('button', { name: 'Add condition' }));
    // platform: "is one of" ticks choices; no JSON typed.
    await userEvent.selectOptions(screen.getByLabelText('Comparison 1'), 'in');
    const choices = screen.getByRole('group', { name: 'Value 1' });
    await userEvent.click(within(choices).getByLabelText('iOS'));
    await userEvent.click(screen.getByRole('button', { name: 'Add condition' }));
    await userEvent.selectOptions(screen.getByLabelText('Field 2'), 'last_seen_at');
    await userEvent.selectOptions(screen.getByLabelText('Comparison 2'), 'within_last');
    await userEvent.type(screen.getByLabelText('Value 2'), '7');
    await waitFor(() => expect(status.textContent).toMatch(/^1,500 installations/), SETTLED);
    const filter = {
      and: [
        { field: 'platform', op: 'in', value: ['ios'] },
        { field: 'last_seen_at', op: 'within_last', value: '7d' },
      ],
    };
    expect(counted.at(-1)).toEqual({ filter });

    await userEvent.type(screen.getByLabelText('Title'), 'Sale');
    await userEvent.type(screen.getByLabelText('Message'), 'Today only');
    await userEvent.click(screen.getByRole('button', { name: 'Send' }));
    const dialog = await screen.findByRole('alertdialog', { name: 'Send to 1,500 installations?' });
    expect(sent).toBeUndefined();
    await userEvent.click(within(dialog).getByRole('button', { name: 'Go back' }));
    expect(screen.queryByRole('alertdialog')).toBeNull();
    await userEvent.click(screen.getByRole('button', { name: 'Send' }));
    await userEvent.click(within(await screen.findByRole('alertdialog')).getByRole('button', { name: 'Send to 1,500 installations' }));
    await waitFor(() => expect(sent).toEqual({ recipients: { filter }, notification: { title: 'Sale', body: 'Today only' } }));
    expect((await screen.findAllByRole('alert')).map((a) => a.textContent)).toContain('Server Error.');
  });

  it('sends at once to 1,000 or fewer, and shows the API’s errors next to their fields in the form’s words', async () => {
    let sent: unknown;
    fakeFetch({
      ...appRoutes,
      [`POST /admin/api/apps/${APP}/audiences/count`]: () => count(2),
      [`POST /admin/api/apps/${APP}/notifications`]: (init) => {
        sent = JSON.parse(init.body as string);
        return {
          status: 422,
          body: {
            message: 'The notification.title field is required. (and 1 more error)',
            errors: {
              'notification.title': ['The notification.title field is required.'],
              'notification.image_url': ['The notification.image_url field must be an absolute https:// URL.'],
            },
          },
        };
      },
    });
    renderWithQueries(<ComposerPage appId={APP} />);
    await userEvent.click(screen.getByLabelText('Users by id'));
    await userEvent.type(screen.getByLabelText('User ids'), 'alice, bob');
    await userEvent.type(screen.getByLabelText('Message'), 'Hello');
    await userEvent.type(screen.getByLabelText('Image URL (optional)'), 'http://example.com/a.png');
    await waitFor(() => expect(screen.getByRole('status', { name: 'Audience count' }).textContent).toMatch(/^2 installations/), SETTLED);
    await userEvent.click(screen.getByRole('button', { name: 'Send' }));
    const title = screen.getByLabelText('Title');
    await waitFor(() => expect(title.getAttribute('aria-invalid')).toBe('true'));
    expect(document.getElementById('compose-title-error')!.textContent).toBe('The title is required.');
    expect(document.getElementById('compose-image_url-error')!.textContent).toBe('The image URL must be an absolute https:// URL.');
    expect(screen.getByLabelText('Image URL (optional)').getAttribute('aria-describedby')).toContain('compose-image_url-error');
    expect(sent).toEqual({
      recipients: { user_ids: ['alice', 'bob'] },
      notification: { title: '', body: 'Hello', image_url: 'http://example.com/a.png' },
    });
  });

  it('puts a refused condition’s error on its row while the audience is built', async () => {
    fakeFetch({
      ...appRoutes,
      [`POST /admin/api/apps/${APP}/audiences/count`]: (init) => {
        const { recipients } = JSON.parse(init.body as string) as { recipients: { filter?: unknown } };
        if (!recipients.filter) return count(3);
        return {
          status: 422,
          body: {
            message: 'The recipients.filter.value field must be a version such as 4.2.',
            errors: { 'recipients.filter.value': ['The recipients.filter.value field must be a version such as 4.2.'] },
          },
        };
      },
    });
    renderWithQueries(<ComposerPage appId={APP} />);
    await userEvent.click(screen.getByRole('button', { name: 'Add condition' }));
    await userEvent.selectOptions(screen.getByLabelText('Field 1'), 'app_version');
    await userEvent.selectOptions(screen.getByLabelText('Comparison 1'), 'gte');
    await userEvent.type(screen.getByLabelText('Value 1'), 'latest');
    const error = await screen.findByText('The value of condition 1 must be a version such as 4.2.', undefined, SETTLED);
    expect(error.id).toBe('compose-condition-0-error');
    expect(screen.getByRole('group', { name: 'Condition 1' }).getAttribute('aria-describedby')).toBe('compose-condition-0-error');
    expect(screen.getByRole('status', { name: 'Audience count' }).textContent).toBe('Not counted: see the audience’s fields.');
    // JSON stays available, and comes back to the controls.
    await userEvent.click(screen.getByRole('button', { name: 'Edit as JSON' }));
    const json = screen.getByLabelText<HTMLTextAreaElement>(/^Filter \(JSON/);
    expect(JSON.parse(json.value)).toEqual({ field: 'app_version', op: 'gte', value: 'latest' });
    await userEvent.clear(json);
    await userEvent.type(json, '{{"field": "language", "op": "eq", "value": "fr"}');
    await userEvent.click(screen.getByRole('button', { name: 'Use the controls' }));
    expect(screen.getByLabelText<HTMLSelectElement>('Field 1').value).toBe('language');
    expect(screen.getByLabelText<HTMLInputElement>('Value 1').value).toBe('fr');
  });

  it('picks a template, fills its variables in, and previews it as an installation receives it', async () => {
    let previewed: unknown;
    fakeFetch({
      ...appRoutes,
      [`POST /admin/api/apps/${APP}/audiences/count`]: () => count(3),
      [`POST /admin/api/apps/${APP}/notifications/preview`]: (init) => {
        previewed = JSON.parse(init.body as string);
        return {
          status: 200,
          body: {
            data: {
              installation_id: 'inst-1',
              platforms: [
                {
                  platform: 'ios',
                  provider: 'apns',
                  payload: { aps: { alert: { title: 'Hi Ann', body: 'On its way' } } },
                  bytes: 60,
                  limit: 4096,
                  skip_reason: null,
                  detail: null,
                },
              ],
            },
          },
        };
      },
    });
    renderWithQueries(<ComposerPage appId={APP} />);
    await userEvent.click(screen.getByLabelText('From a template'));
    expect(screen.queryByLabelText('Title')).toBeNull();
    await userEvent.selectOptions(await screen.findByLabelText('Template'), 'order_shipped');
    expect(screen.getByRole('option', { name: 'Order shipped (order_shipped, version 2)' })).toBeTruthy();
    await userEvent.type(screen.getByLabelText('Variables (JSON, optional)'), '{{"first_name": "Ann"}');
    await userEvent.type(screen.getByLabelText('Installation id (optional)'), 'inst-1');
    await userEvent.click(screen.getByRole('button', { name: 'Preview' }));
    const payload = await screen.findByRole('figure', { name: 'Payload for ios' });
    expect(payload.textContent).toContain('"title": "Hi Ann"');
    expect(payload.textContent).toContain('60 of 4,096 bytes');
    expect(previewed).toEqual({ recipients: { all: true }, template: { key: 'order_shipped', variables: { first_name: 'Ann' } }, installation_id: 'inst-1' });
  });

  it('sets up two variants and an A/B test, shows the sample in the confirmation, and puts a variant’s error on its field', async () => {
    const sent: unknown[] = [];
    let previewed: unknown;
    fakeFetch({
      ...appRoutes,
      [`POST /admin/api/apps/${APP}/audiences/count`]: () => count(2000),
      [`POST /admin/api/apps/${APP}/notifications/preview`]: (init) => {
        previewed = JSON.parse(init.body as string);
        return { status: 200, body: { data: { installation_id: null, platforms: [] } } };
      },
      [`POST /admin/api/apps/${APP}/notifications`]: (init) => {
        sent.push(JSON.parse(init.body as string));
        return {
          status: 422,
          body: {
            message: 'The variants.1.notification.title field is required. (and 1 more error)',
            errors: {
              'variants.1.notification.title': ['The variants.1.notification.title field is required.'],
              'options.ab_test.winner_after': ['The options.ab_test.winner_after field must be between 5m and 72h.'],
            },
          },
        };
      },
    });
    renderWithQueries(<ComposerPage appId={APP} />);
    await userEvent.click(screen.getByLabelText('Variants (A/B)'));
    expect(screen.queryByLabelText('Title')).toBeNull();
    // Two to start with, named a and b, half each.
    const first = screen.getByRole('group', { name: 'Variant 1: a' });
    expect(screen.getByLabelText<HTMLInputElement>('Name of variant 2').value).toBe('b');
    expect(within(first).getByText('50% of the users')).toBeTruthy();
    await userEvent.type(screen.getByLabelText('Title of variant 1'), 'Half price');
    await userEvent.type(screen.getByLabelText('Message of variant 1'), 'Today only');
    await userEvent.clear(screen.getByLabelText('Weight of variant 1'));
    await userEvent.type(screen.getByLabelText('Weight of variant 1'), '150');
    expect(within(first).getByText('75% of the users')).toBeTruthy();
    await userEvent.type(screen.getByLabelText('Message of variant 2'), 'No title here');
    // A third comes and goes; five at most.
    await userEvent.click(screen.getByRole('button', { name: 'Add a variant' }));
    expect(screen.getByLabelText<HTMLInputElement>('Name of variant 3').value).toBe('c');
    await userEvent.click(screen.getByRole('button', { name: 'Remove variant 3' }));
    expect(screen.queryByRole('button', { name: /Remove variant/ })).toBeNull();

    // The preview shows the chosen variant.
    const preview = screen.getByRole('complementary', { name: 'Preview' });
    expect(within(preview).getByRole('figure', { name: 'On iOS' }).textContent).toContain('Half price');
    await userEvent.click(within(screen.getByRole('radiogroup', { name: 'Variant shown' })).getByLabelText('Variant 2 (b)'));
    expect(within(preview).getByRole('figure', { name: 'On iOS' }).textContent).toContain('No title here');
    await userEvent.click(screen.getByRole('button', { name: 'Preview' }));
    await waitFor(() => expect(previewed).toEqual({ recipients: { all: true }, notification: { title: '', body: 'No title here' } }));

    await userEvent.click(screen.getByLabelText('Test on a sample first, then send the winner to the rest'));
    await userEvent.clear(screen.getByLabelText('Sample (% of the audience)'));
    await userEvent.type(screen.getByLabelText('Sample (% of the audience)'), '15');
    await userEvent.clear(screen.getByLabelText('Wait'));
    await userEvent.type(screen.getByLabelText('Wait'), '2');
    await userEvent.selectOptions(screen.getByLabelText('Unit'), 'm');
    await userEvent.selectOptions(screen.getByLabelText('The winner is the variant with the most'), 'displayed');

    await waitFor(() => expect(screen.getByRole('status', { name: 'Audience count' }).textContent).toMatch(/^2,000 installations/), SETTLED);
    // The sample as a share of the live count, before anything is sent.
    expect(document.getElementById('compose-ab_test.sample_percent-hint')!.textContent).toMatch(/About 300 of the 2,000 installations counted\.$/);
    await userEvent.click(screen.getByRole('button', { name: 'Send' }));
    const dialog = await screen.findByRole('alertdialog', { name: 'Send to 2,000 installations?' });
    expect(within(dialog).getByText(/^A\/B test:/).textContent).toBe(
      'A/B test: about 300 installations (15% of 2,000) get the variants first; after 2 minutes, the variant with the most displays goes to the rest.',
    );
    await userEvent.click(within(dialog).getByRole('button', { name: 'Send to 2,000 installations' }));
    await waitFor(() =>
      expect(sent).toEqual([
        {
          recipients: { all: true },
          variants: [
            { key: 'a', weight: 150, notification: { title: 'Half price', body: 'Today only' } },
            { key: 'b', weight: 50, notification: { title: '', body: 'No title here' } },
          ],
          options: { ab_test: { sample_percent: 15, winner_after: '2m', metric: 'displayed' } },
        },
      ]),
    );
    const title = screen.getByLabelText('Title of variant 2');
    await waitFor(() => expect(title.getAttribute('aria-invalid')).toBe('true'));
    expect(document.getElementById('compose-variant.1.title-error')!.textContent).toBe('The title of variant 2 is required.');
    expect(document.getElementById('compose-ab_test.winner_after-error')!.textContent).toBe('The waiting time before the winner must be between 5m and 72h.');
    expect(document.body.textContent).not.toContain('variants.1');
  });
});
