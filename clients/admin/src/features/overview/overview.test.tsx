import { render, screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { OverviewBody } from './OverviewPage';

describe('OverviewBody', () => {
  it('totals the hour by outcome, lists the queues and the webhook failures', () => {
    render(
      <OverviewBody
        data={{
          every_app: true,
          minutes: [
            { minute: '2026-11-24T10:00:00.000Z', accepted: 1500, failed: 2, skipped: 0, retried: 1 },
            { minute: '2026-11-24T10:01:00.000Z', accepted: 2500, failed: 1, skipped: 4, retried: 0 },
          ],
          queues: [{ name: 'deliver', counts: { waiting: 12000, active: 3, delayed: 0, prioritized: 0, failed: 0 } }],
          webhooks: {
            hours: 24,
            failed: 1,
            retrying: 0,
            recent: [
              {
                id: 'm1',
                app_id: 'a1',
                url: 'https://hooks.example.com/push',
                type: 'notification.completed',
                subject_id: 'n1',
                status: 'failed',
                attempts: 8,
                last_error: 'HTTP 500',
                created_at: '2026-11-24T10:00:00.000Z',
                finished_at: '2026-11-25T09:00:00.000Z',
              },
            ],
          },
        }}
      />,
    );
    const accepted = screen.getByText('Accepted', { selector: 'dt' }).closest('.figure') as HTMLElement;
    expect(within(accepted).getByText('4,000')).toBeTruthy();
    expect(screen.getByRole('row', { name: 'deliver 12,000 3 0 0 0' })).toBeTruthy();
    expect(screen.getByRole('row', { name: /https:\/\/hooks\.example\.com\/push notification\.completed failed 8 HTTP 500/ })).toBeTruthy();
  });

  it('says when Redis did not answer and when no webhook failed', () => {
    render(<OverviewBody data={{ every_app: true, minutes: [], queues: null, webhooks: { hours: 24, failed: 0, retrying: 0, recent: [] } }} />);
    expect(screen.getByRole('alert').textContent).toBe('Redis did not answer: queue depths unknown.');
    expect(screen.getByText('No webhook call has failed lately.')).toBeTruthy();
  });

  it("shows an operator of some apps their apps' figures and no queues", () => {
    render(<OverviewBody data={{ every_app: false, minutes: [], queues: null, webhooks: { hours: 24, failed: 0, retrying: 0, recent: [] } }} />);
    expect(screen.getByText(/Your apps only/)).toBeTruthy();
    expect(screen.queryByRole('heading', { name: 'Queues' })).toBeNull();
    expect(screen.queryByRole('alert')).toBeNull();
  });
});
