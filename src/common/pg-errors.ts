/** SQLSTATE and message, whether TypeORM wrapped the error or pg threw it bare. */
export function pgError(error: unknown): { code?: string; message?: string } {
  const wrapped = error as { driverError?: { code?: string; message?: string }; code?: string; message?: string } | undefined;
  return wrapped?.driverError ?? wrapped ?? {};
}

export const UNIQUE_VIOLATION = '23505';

export const DEADLOCK_DETECTED = '40P01';

export async function retryingDeadlocks<T>(work: () => Promise<T>, attempts: number): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      if (pgError(error).code !== DEADLOCK_DETECTED || attempt >= attempts) throw error;
    }
  }
}
