import { isPartitionRace } from './small-send';

const failed = (code: string, message = '') => ({ driverError: { code, message } });

describe('a small send that meets the partitions of deliveries in the making falls back to its fan-out job (docs/api.md#small-sends)', () => {
  it('on a row that fits no partition, a deadlock or a lock timeout', () => {
    expect(isPartitionRace(failed('23514', 'no partition of relation "deliveries" found for row'))).toBe(true);
    expect(isPartitionRace(failed('40P01', 'deadlock detected'))).toBe(true);
    expect(isPartitionRace(failed('55P03', 'canceling statement due to lock timeout'))).toBe(true);
  });

  it('on nothing else: another check violation, another error, no driver error', () => {
    expect(isPartitionRace(failed('23514', 'new row violates check constraint "x"'))).toBe(false);
    expect(isPartitionRace(failed('23505', 'duplicate key'))).toBe(false);
    expect(isPartitionRace(new Error('boom'))).toBe(false);
  });
});
