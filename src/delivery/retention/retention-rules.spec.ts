import { heldTooLong, partitionName, partitionsDue, PartitionRange, retentionCutoff, weekStart, weeksToCreate } from './retention-rules';

const at = (iso: string) => new Date(iso);

describe('retention date rules', () => {
  it('starts weeks on Monday 00:00 UTC, whatever the time of day or the weekday', () => {
    expect(weekStart(at('2026-11-23T00:00:00Z'))).toEqual(at('2026-11-23T00:00:00Z'));
    expect(weekStart(at('2026-11-24T23:59:59.999Z'))).toEqual(at('2026-11-23T00:00:00Z'));
    expect(weekStart(at('2026-11-29T23:59:59Z'))).toEqual(at('2026-11-23T00:00:00Z'));
    expect(weekStart(at('2026-11-30T00:00:00Z'))).toEqual(at('2026-11-30T00:00:00Z'));
    // Across a month and a year.
    expect(weekStart(at('2027-01-01T12:00:00Z'))).toEqual(at('2026-12-28T00:00:00Z'));
  });

  it('names a partition after its table and its Monday', () => {
    expect(partitionName('deliveries', at('2026-11-30T00:00:00Z'))).toBe('deliveries_p20261130');
  });

  it('creates the current week and the two ahead, except those a partition covers', () => {
    const now = at('2026-11-25T10:00:00Z');
    expect(weeksToCreate(now, [])).toEqual([at('2026-11-23T00:00:00Z'), at('2026-11-30T00:00:00Z'), at('2026-12-07T00:00:00Z')]);
    const existing: PartitionRange[] = [
      { name: 'deliveries_before_20261123', from: null, to: at('2026-11-23T00:00:00Z') },
      { name: 'deliveries_p20261123', from: at('2026-11-23T00:00:00Z'), to: at('2026-11-30T00:00:00Z') },
    ];
    expect(weeksToCreate(now, existing)).toEqual([at('2026-11-30T00:00:00Z'), at('2026-12-07T00:00:00Z')]);
    // A partition that begins at MINVALUE covers every week before its end.
    expect(weeksToCreate(now, [{ name: 'old', from: null, to: at('2026-12-14T00:00:00Z') }])).toEqual([]);
  });

  it('makes due, oldest first, the partitions that end at or before the cutoff', () => {
    const now = at('2026-12-31T00:00:00Z');
    const cutoff = retentionCutoff(now, 30);
    expect(cutoff).toEqual(at('2026-12-01T00:00:00Z'));
    const weeks: PartitionRange[] = [
      { name: 'w3', from: at('2026-11-30T00:00:00Z'), to: at('2026-12-07T00:00:00Z') },
      { name: 'w2', from: at('2026-11-23T00:00:00Z'), to: at('2026-11-30T00:00:00Z') },
      { name: 'legacy', from: null, to: at('2026-11-16T00:00:00Z') },
      { name: 'w1', from: at('2026-11-16T00:00:00Z'), to: at('2026-11-23T00:00:00Z') },
    ];
    expect(partitionsDue(weeks, cutoff).map((p) => p.name)).toEqual(['legacy', 'w1', 'w2']);
    expect(partitionsDue(weeks, at('2026-11-30T00:00:00Z')).map((p) => p.name)).toEqual(['legacy', 'w1', 'w2']);
    expect(partitionsDue(weeks, at('2026-11-29T23:59:59Z')).map((p) => p.name)).toEqual(['legacy', 'w1']);
  });

  it('deletes row by row in a held partition only a week after it became due', () => {
    const week: PartitionRange = { name: 'w', from: at('2026-11-23T00:00:00Z'), to: at('2026-11-30T00:00:00Z') };
    expect(heldTooLong(week, at('2026-11-30T00:00:00Z'))).toBe(false);
    expect(heldTooLong(week, at('2026-12-06T23:59:59Z'))).toBe(false);
    expect(heldTooLong(week, at('2026-12-07T00:00:00Z'))).toBe(true);
  });
});
