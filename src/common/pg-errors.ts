/** A PostgreSQL error's SQLSTATE and message, whether TypeORM wrapped it (`driverError`) or pg threw it bare (common/prepared-query.ts). */
export function pgError(error: unknown): { code?: string; message?: string } {
  const wrapped = error as { driverError?: { code?: string; message?: string }; code?: string; message?: string } | undefined;
  return wrapped?.driverError ?? wrapped ?? {};
}

/** PostgreSQL's unique_violation. */
export const UNIQUE_VIOLATION = '23505';

/** PostgreSQL's deadlock_detected. */
export const DEADLOCK_DETECTED = '40P01';

/**
 * Runs `work`, and again while PostgreSQL rolls it back as a deadlock's victim, `attempts` times
 * in all: the other transaction of the cycle went on, so the next run usually passes.
 */
export async function retryingDeadlocks<T>(work: () => Promise<T>, attempts: number): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      if (pgError(error).code !== DEADLOCK_DETECTED || attempt >= attempts) throw error;
    }
  }
}
