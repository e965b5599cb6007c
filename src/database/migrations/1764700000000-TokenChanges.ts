import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Tells every listening api process when a token stops being what it was (revoked, expired,
 * re-scoped, deleted, also by hand in SQL or by its app's deletion), so that it can keep
 * authenticated tokens in memory and still honour a revocation at once (auth/token-cache.ts).
 * `last_used_at` writes do not notify.
 */
export class TokenChanges1764700000000 implements MigrationInterface {
  name = 'TokenChanges1764700000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE FUNCTION "api_tokens_notify_change"() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_notify('api_tokens_changed', '');
        RETURN NULL;
      END $$`);
    await q.query(`
      CREATE TRIGGER "api_tokens_changed" AFTER UPDATE OF "app_id", "token_hash", "abilities", "expires_at", "revoked_at" OR DELETE
      ON "api_tokens" FOR EACH ROW EXECUTE FUNCTION "api_tokens_notify_change"()`);
    await q.query(`
      CREATE TRIGGER "api_tokens_truncated" AFTER TRUNCATE
      ON "api_tokens" FOR EACH STATEMENT EXECUTE FUNCTION "api_tokens_notify_change"()`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TRIGGER "api_tokens_truncated" ON "api_tokens"`);
    await q.query(`DROP TRIGGER "api_tokens_changed" ON "api_tokens"`);
    await q.query(`DROP FUNCTION "api_tokens_notify_change"()`);
  }
}
