import { planDueGroup } from './due-plan';
import type { ClaimedDueSend } from './due-sends.repository';

const AT = new Date('2026-11-29T18:00:00.000Z');
const due = (id: string, more: Partial<ClaimedDueSend> = {}): ClaimedDueSend => ({
  id,
  app_id: 'app-a',
  recipient_kind: 'user_ids',
  user_ids: ['u-1'],
  installation_ids: null,
  options: null,
  send_at: AT,
  variants: null,
  silent: false,
  turn: 1,
  ...more,
});

describe('planDueGroup (docs/api.md#due-sends)', () => {
  it('fans out in the group what a small send would be, and keeps the claim order of the rest', () => {
    const claimed = [
      due('small-user'),
      due('large', { user_ids: ['1', '2', '3', '4', '5', '6'] }),
      due('small-installations', { recipient_kind: 'installation_ids', user_ids: [], installation_ids: ['i-1'] }),
      due('marketing', { options: { category: 'marketing' } }),
      due('local', { options: { local_time: '09:00' } }),
      due('throttled', { options: { throttle_per_minute: 600 } }),
      due('tags', { recipient_kind: 'tags', user_ids: [] }),
      due('all', { recipient_kind: 'all', user_ids: [] }),
    ];
    const { small, fanouts } = planDueGroup(claimed, 5);
    expect(small.map((s) => s.id)).toEqual(['small-user', 'small-installations']);
    expect(fanouts.map((s) => s.id)).toEqual(['large', 'marketing', 'local', 'throttled', 'tags', 'all']);
  });

  it('takes none in the group when small sends are off (SMALL_SEND_MAX_RECIPIENTS=0)', () => {
    expect(planDueGroup([due('a'), due('b')], 0)).toEqual({ small: [], fanouts: [due('a'), due('b')] });
  });
});
