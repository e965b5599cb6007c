import type { DataSource } from 'typeorm';
import type { FilterNode } from '../../src/common/audience-filter';
import { AudiencesRepository } from '../../src/notifications/audiences/audiences.repository';

/** The last statement a repository call sends, and its parameters, without running it. */
export async function captured(call: (db: DataSource) => Promise<unknown>): Promise<{ sql: string; params: unknown[] }> {
  let statement: { sql: string; params: unknown[] } | undefined;
  const recorder = {
    query: (sql: string, params: unknown[] = []) => {
      statement = { sql, params };
      return Promise.resolve([]);
    },
    transaction: <T>(work: (manager: unknown) => Promise<T>) => work(recorder),
  };
  await call(recorder as unknown as DataSource);
  return statement!;
}

/** The statement AudiencesRepository.count sends for `filter` on the app's installations, without running it. */
export function countStatement(appId: string, filter: FilterNode): Promise<{ sql: string; params: unknown[] }> {
  return captured((db) => new AudiencesRepository(db, { AUDIENCE_STATEMENT_TIMEOUT_MS: 1 } as never).count(appId, { kind: 'filter', filter, now: new Date() }));
}
