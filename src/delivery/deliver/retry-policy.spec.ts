import { retryDelayMs } from './retry-policy';

describe('retry policy', () => {
  const middle = () => 0.5; // no jitter: 0.8 + 0.4 * 0.5 = 1

  it('doubles from the base with each attempt', () => {
    expect([1, 2, 3, 4].map((attempt) => retryDelayMs(attempt, 1000, 300_000, 0, middle))).toEqual([1000, 2000, 4000, 8000]);
  });

  it('never exceeds the maximum, however many attempts', () => {
    expect(retryDelayMs(30, 1000, 300_000, 0, middle)).toBe(300_000);
    expect(retryDelayMs(30, 1000, 300_000, 0, () => 0.999)).toBe(300_000);
  });

  it('jitters by at most 20% either way', () => {
    expect(retryDelayMs(3, 1000, 300_000, 0, () => 0)).toBe(3200);
    expect(retryDelayMs(3, 1000, 300_000, 0, () => 1)).toBe(4800);
  });

  it('lets a longer Retry-After win, and only a longer one', () => {
    expect(retryDelayMs(1, 1000, 300_000, 60_000, middle)).toBe(60_000);
    expect(retryDelayMs(4, 1000, 300_000, 10, middle)).toBe(8000);
    // Retry-After is the provider's word: it may exceed our own maximum.
    expect(retryDelayMs(1, 1000, 5000, 600_000, middle)).toBe(600_000);
  });

  it('treats attempt 0 like the first', () => {
    expect(retryDelayMs(0, 1000, 300_000, 0, middle)).toBe(1000);
  });
});
