import { QUEUES } from '../common/queues';
import { runsQueue } from './worker-options';

describe('runsQueue (WORKER_QUEUES, docs/operations.md "A worker process per lane")', () => {
  it('runs every queue when WORKER_QUEUES is unset', () => {
    for (const queue of QUEUES) expect(runsQueue(undefined, queue)).toBe(true);
  });

  it('runs only the queues named, spaces allowed after the commas', () => {
    expect(QUEUES.filter((queue) => runsQueue('deliver-small', queue))).toEqual(['deliver-small']);
    expect(QUEUES.filter((queue) => runsQueue('fanout, deliver,maintenance', queue))).toEqual(['fanout', 'deliver', 'maintenance']);
  });

  it('does not take `deliver` for `deliver-small` or the other way round', () => {
    expect(runsQueue('deliver', 'deliver-small')).toBe(false);
    expect(runsQueue('deliver-small', 'deliver')).toBe(false);
  });
});
