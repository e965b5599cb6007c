import { isComplete } from './completion';

describe('the completion rule', () => {
  const progress = (fannedOut: boolean, installations: number, accepted: number, failed: number, skipped: number) => ({
    fannedOut,
    installations,
    accepted,
    failed,
    skipped,
  });

  it('waits for the fan-out, however many outcomes are in', () => {
    expect(isComplete(progress(false, 3, 3, 0, 0))).toBe(false);
    expect(isComplete(progress(false, 0, 0, 0, 0))).toBe(false);
  });

  it('is complete once accepted, failed and skipped together cover every installation', () => {
    expect(isComplete(progress(true, 3, 1, 1, 1))).toBe(true);
    expect(isComplete(progress(true, 3, 0, 0, 3))).toBe(true);
    expect(isComplete(progress(true, 3, 1, 1, 0))).toBe(false);
  });

  it('completes a send that reached no installation as soon as it is fanned out', () => {
    expect(isComplete(progress(true, 0, 0, 0, 0))).toBe(true);
  });
});
