import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 54: operator accounts with roles per app or for every app, their sessions (revocable),
 * one-time invitations, the e-mail domains OIDC may admit, and the audit log (docs/api.md#27-the-console-for-a-team).
 * Grants and the audit log keep an app's id without a foreign key to a deleted app only where
 * the record must outlive it: the audit log.
 */
export class OperatorsAndAuditLog1768000000000 implements MigrationInterface {
  name = 'OperatorsAndAuditLog1768000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE "operators" (
      "id" uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      "email" varchar(320) NOT NULL,
      "password_hash" text,
      "bootstrap" boolean NOT NULL DEFAULT false,
      "disabled_at" timestamptz,
      "created_at" timestamptz NOT NULL DEFAULT now(),
      "updated_at" timestamptz NOT NULL DEFAULT now()
    )`);
    await q.query(`CREATE UNIQUE INDEX "operators_email_key" ON "operators" (lower("email"))`);
    await q.query(`CREATE TABLE "operator_grants" (
      "operator_id" uuid NOT NULL REFERENCES "operators" ("id") ON DELETE CASCADE,
      "app_id" uuid REFERENCES "apps" ("id") ON DELETE CASCADE,
      "role" varchar(16) NOT NULL CHECK ("role" IN ('viewer', 'editor', 'owner')),
      CONSTRAINT "operator_grants_key" UNIQUE NULLS NOT DISTINCT ("operator_id", "app_id")
    )`);
    await q.query(`CREATE TABLE "operator_sessions" (
      "id" uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      "operator_id" uuid NOT NULL REFERENCES "operators" ("id") ON DELETE CASCADE,
      "token_hash" bytea NOT NULL UNIQUE,
      "csrf" varchar(43) NOT NULL,
      "method" varchar(16) NOT NULL,
      "address" varchar(64),
      "user_agent" varchar(512),
      "created_at" timestamptz NOT NULL DEFAULT now(),
      "expires_at" timestamptz NOT NULL,
      "revoked_at" timestamptz
    )`);
    await q.query(`CREATE INDEX "operator_sessions_operator_idx" ON "operator_sessions" ("operator_id", "created_at" DESC)`);
    await q.query(`CREATE TABLE "operator_invitations" (
      "token_hash" bytea PRIMARY KEY,
      "operator_id" uuid NOT NULL REFERENCES "operators" ("id") ON DELETE CASCADE,
      "created_at" timestamptz NOT NULL DEFAULT now(),
      "expires_at" timestamptz NOT NULL,
      "used_at" timestamptz
    )`);
    await q.query(`CREATE TABLE "operator_domains" (
      "domain" varchar(253) PRIMARY KEY,
      "role" varchar(16) NOT NULL CHECK ("role" IN ('viewer', 'editor', 'owner')),
      "created_at" timestamptz NOT NULL DEFAULT now()
    )`);
    await q.query(`CREATE TABLE "audit_log" (
      "id" bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      "at" timestamptz NOT NULL DEFAULT now(),
      "actor_kind" varchar(16) NOT NULL,
      "actor_id" uuid,
      "actor" varchar(320) NOT NULL,
      "action" varchar(64) NOT NULL,
      "app_id" uuid,
      "target" varchar(255),
      "address" varchar(64),
      "details" jsonb NOT NULL DEFAULT '{}'
    )`);
    await q.query(`CREATE INDEX "audit_log_at_idx" ON "audit_log" ("at")`);
    await q.query(`CREATE INDEX "audit_log_app_idx" ON "audit_log" ("app_id", "id" DESC)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "audit_log"`);
    await q.query(`DROP TABLE "operator_domains"`);
    await q.query(`DROP TABLE "operator_invitations"`);
    await q.query(`DROP TABLE "operator_sessions"`);
    await q.query(`DROP TABLE "operator_grants"`);
    await q.query(`DROP TABLE "operators"`);
  }
}
