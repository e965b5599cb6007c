import { MigrationInterface, QueryRunner } from 'typeorm';

/** Huawei Push Kit credentials of an app (docs/api.md#huawei): the client secret sealed like the other providers' secrets. */
export class HmsCredentials1767200000000 implements MigrationInterface {
  name = 'HmsCredentials1767200000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `ALTER TABLE "app_credentials" ADD "hms_app_id" character varying(64), ADD "hms_client_id" character varying(64), ADD "hms_client_secret_enc" text`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "app_credentials" DROP COLUMN "hms_app_id", DROP COLUMN "hms_client_id", DROP COLUMN "hms_client_secret_enc"`);
  }
}
