import { newTestService } from '../../../test/support/new-test-service';
import { DueSendsService } from './due-sends.service';

/** The drain's loop (docs/api.md#due-sends); the claim itself is tested on PostgreSQL (test/integration/due-sends.int-spec.ts). */
describe('DueSendsService.drain', () => {
  const setup = (claims: number[]) => {
    const { sut } = newTestService(DueSendsService);
    sut.groupSize = 3;
    const claimGroup = jest.spyOn(sut, 'claimGroup');
    for (const claimed of claims) claimGroup.mockResolvedValueOnce({ claimed, fannedOut: claimed - 1, queued: claimed > 0 ? 1 : 0 });
    return { sut, claimGroup };
  };

  it('claims group after group until one is not full, and calls in one helper after the first full group', async () => {
    const { sut, claimGroup } = setup([3, 3, 2]);
    const onFull = jest.fn(async () => undefined);
    expect(await sut.drain(onFull)).toEqual({ groups: 3, fannedOut: 5, queued: 3 });
    expect(claimGroup).toHaveBeenCalledTimes(3);
    expect(onFull).toHaveBeenCalledTimes(1);
  });

  it('stops at an empty claim without a helper, and goes on when the helper cannot be queued', async () => {
    expect(await setup([0]).sut.drain(jest.fn())).toEqual({ groups: 0, fannedOut: 0, queued: 0 });
    const { sut } = setup([3, 1]);
    expect(await sut.drain(async () => Promise.reject(new Error('no Redis')))).toEqual({ groups: 2, fannedOut: 2, queued: 2 });
  });
});
