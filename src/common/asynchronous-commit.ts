/**
 * A condition, always true, that turns `synchronous_commit` off for the transaction of the statement
 * it is in: its commit then does not wait for its WAL to reach the disk. Here, in common, because
 * the worker (outcomes, docs/decisions/0003-outcomes-commit-without-waiting-for-wal.md; claims of a
 * batch) and the API (claims of an Idempotency-Key, docs/decisions/0012-claims-commit-without-waiting-for-wal.md)
 * use it; no other statement may. A statement evaluates it with the rows it writes, so it is in
 * effect whenever the statement writes anything. Tested in test/integration/delivery-storage.int-spec.ts
 * and idempotency.int-spec.ts.
 */
export const COMMIT_WITHOUT_FLUSH = `(SELECT set_config('synchronous_commit', 'off', true)) IS NOT NULL`;
