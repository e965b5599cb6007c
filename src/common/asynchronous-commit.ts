// An always-true condition that turns synchronous_commit off for its statement's transaction, for outcomes and claims only
// (docs/decisions/0003-outcomes-commit-without-waiting-for-wal.md, docs/decisions/0012-claims-commit-without-waiting-for-wal.md).
export const COMMIT_WITHOUT_FLUSH = `(SELECT set_config('synchronous_commit', 'off', true)) IS NOT NULL`;
