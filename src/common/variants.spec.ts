import { inSample, pickWinner, subjectOf, variantOf, variantThresholds, winnerAfterMs, abPhaseShown } from './variants';

const NOTIFICATION = '6f1f8a52-3c1e-4a0b-9d55-0d8f3b2a7c11';

describe('variant assignment (docs/api.md#variants)', () => {
  it('gives a user the same variant on every device and every call', () => {
    const weights = [50, 30, 20];
    const subject = subjectOf('user-42', 'device-a');
    const first = variantOf(NOTIFICATION, subject, weights);
    expect(subjectOf('user-42', 'device-b')).toBe(subject);
    for (let i = 0; i < 10; i++) expect(variantOf(NOTIFICATION, subjectOf('user-42', `device-${i}`), weights)).toBe(first);
  });

  it('chooses an installation without a user by its own id', () => {
    expect(subjectOf(null, 'device-a')).toBe('i:device-a');
    expect(subjectOf('u1', 'device-a')).toBe('u:u1');
  });

  it.each([[[50, 50]], [[70, 30]], [[1, 1, 98]], [[10, 20, 30, 40]], [[100, 100, 100, 100, 100]]])(
    'splits 100,000 users within 2 points of the weights %j',
    (weights) => {
      const counts = weights.map(() => 0);
      for (let user = 0; user < 100_000; user++) counts[variantOf(NOTIFICATION, subjectOf(`user-${user}`, 'x'), weights)]++;
      const total = weights.reduce((a, b) => a + b, 0);
      counts.forEach((count, index) => expect(Math.abs((count / 100_000) * 100 - (weights[index] / total) * 100)).toBeLessThan(2));
    },
  );

  it('differs between notifications (a user is not always in the same arm)', () => {
    const other = 'a0b1c2d3-0000-4000-8000-000000000000';
    let differs = 0;
    for (let user = 0; user < 1000; user++) {
      const subject = subjectOf(`user-${user}`, 'x');
      if (variantOf(NOTIFICATION, subject, [50, 50]) !== variantOf(other, subject, [50, 50])) differs++;
    }
    expect(differs).toBeGreaterThan(400);
    expect(differs).toBeLessThan(600);
  });

  it('takes sample_percent of 100,000 users in the sample, split by weight within it', () => {
    let sampled = 0;
    const counts = [0, 0];
    for (let user = 0; user < 100_000; user++) {
      const subject = subjectOf(`user-${user}`, 'x');
      if (!inSample(NOTIFICATION, subject, 20)) continue;
      sampled++;
      counts[variantOf(NOTIFICATION, subject, [75, 25])]++;
    }
    expect(Math.abs(sampled / 1000 - 20)).toBeLessThan(2);
    expect(Math.abs((counts[0] / sampled) * 100 - 75)).toBeLessThan(2);
  });

  it('places a point among the running totals as width_bucket does', () => {
    expect(variantThresholds([50, 30, 20])).toEqual([50, 80]);
    expect(variantThresholds([1, 1])).toEqual([1]);
  });
});

describe('winner_after', () => {
  it.each([
    ['5m', 300_000],
    ['90m', 5_400_000],
    ['4h', 14_400_000],
    ['72h', 259_200_000],
  ])('reads %s', (text, ms) => expect(winnerAfterMs(text)).toBe(ms));

  it.each(['4m', '73h', '4320m1', '0h', '1d', 'h', '10', '05m'])('refuses %s', (text) => expect(winnerAfterMs(text)).toBeNull());
});

describe('pickWinner (docs/api.md#a-b-test-with-a-winner)', () => {
  it('takes the highest metric per accepted message, not the highest count', () => {
    expect(
      pickWinner([
        { accepted: 1000, metric: 100 },
        { accepted: 100, metric: 20 },
      ]),
    ).toBe(1);
  });

  it('gives ties to the first listed', () => {
    expect(
      pickWinner([
        { accepted: 10, metric: 1 },
        { accepted: 20, metric: 2 },
        { accepted: 30, metric: 3 },
      ]),
    ).toBe(0);
    expect(
      pickWinner([
        { accepted: 0, metric: 0 },
        { accepted: 0, metric: 0 },
      ]),
    ).toBe(0);
  });

  it('scores a variant with nothing accepted as 0', () => {
    expect(
      pickWinner([
        { accepted: 0, metric: 0 },
        { accepted: 5, metric: 1 },
      ]),
    ).toBe(1);
  });
});

describe('abPhaseShown', () => {
  it('is done once the notification completed, else the stored phase', () => {
    expect(abPhaseShown(null, null)).toBeNull();
    expect(abPhaseShown('sample', null)).toBe('sample');
    expect(abPhaseShown('winner', null)).toBe('winner');
    expect(abPhaseShown('sample', new Date())).toBe('done');
  });
});
