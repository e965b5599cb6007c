import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * An iOS installation's WidgetKit push token (docs/api.md#widgets), and each delivery's provider
 * message id (docs/api.md#delivery-trace). Both nullable without a default: a catalogue change only.
 */
export class WidgetsAndProviderIds1767400000000 implements MigrationInterface {
  name = 'WidgetsAndProviderIds1767400000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "installations" ADD "widget_push_token" character varying(200)`);
    await q.query(`ALTER TABLE "deliveries" ADD "provider_message_id" character varying(255)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "deliveries" DROP COLUMN "provider_message_id"`);
    await q.query(`ALTER TABLE "installations" DROP COLUMN "widget_push_token"`);
  }
}
