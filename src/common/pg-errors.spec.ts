import { DEADLOCK_DETECTED, pgError, retryingDeadlocks } from './pg-errors';

const deadlock = () => Object.assign(new Error('deadlock detected'), { code: DEADLOCK_DETECTED });

describe('pgError', () => {
  it("reads TypeORM's driverError, else the error itself", () => {
    expect(pgError({ driverError: { code: '23514', message: 'no partition' }, code: 'x' })).toEqual({ code: '23514', message: 'no partition' });
    expect(pgError(Object.assign(new Error('bare'), { code: '55P03' }))).toMatchObject({ code: '55P03', message: 'bare' });
    expect(pgError(undefined)).toEqual({});
  });
});

describe('retryingDeadlocks', () => {
  it('runs again after a deadlock, wrapped or bare, up to its attempts; other errors at once', async () => {
    const errors: unknown[] = [deadlock(), { driverError: { code: DEADLOCK_DETECTED } }];
    let runs = 0;
    await expect(
      retryingDeadlocks(async () => {
        runs++;
        if (errors.length > 0) throw errors.shift();
        return 'done';
      }, 5),
    ).resolves.toBe('done');
    expect(runs).toBe(3);

    runs = 0;
    await expect(retryingDeadlocks(() => (runs++, Promise.reject(deadlock())), 3)).rejects.toThrow('deadlock detected');
    expect(runs).toBe(3);

    runs = 0;
    await expect(retryingDeadlocks(() => (runs++, Promise.reject(new Error('value too long'))), 3)).rejects.toThrow('value too long');
    expect(runs).toBe(1);
  });
});
