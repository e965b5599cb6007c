import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Targeting and timing (docs/api.md#recipients to docs/api.md#localization): installation tags with a GIN index for "carries any
 * of these tags" (`tags && $1`), the other recipient kinds, `send_at`, cancelling, localized
 * content, and each delivery's due time. Columns are added (never tables rebuilt), so this applies
 * whether `deliveries` is a plain or a partitioned table.
 */
export class TargetingAndTiming1764300000000 implements MigrationInterface {
  name = 'TargetingAndTiming1764300000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "installations" ADD "tags" text array NOT NULL DEFAULT '{}'`);
    await q.query(`CREATE INDEX "installations_tags_idx" ON "installations" USING gin ("tags")`);
    // Which recipients key the send used; its values are in user_ids, installation_ids or tags.
    await q.query(`ALTER TABLE "notifications" ADD "recipient_kind" character varying(16) NOT NULL DEFAULT 'user_ids'`);
    await q.query(`ALTER TABLE "notifications" ADD "installation_ids" text array`);
    await q.query(`ALTER TABLE "notifications" ADD "tags" text array`);
    // Fan-outs over tags or the whole app walk installations by installation_id: the last one done.
    await q.query(`ALTER TABLE "notifications" ADD "fanout_cursor" character varying(255)`);
    await q.query(`ALTER TABLE "notifications" ADD "send_at" TIMESTAMP WITH TIME ZONE`);
    await q.query(`ALTER TABLE "notifications" ADD "canceled_at" TIMESTAMP WITH TIME ZONE`);
    // json, not jsonb: the matching rule depends on the keys' request order, which jsonb does not keep.
    await q.query(`ALTER TABLE "notifications" ADD "localizations" json`);
    await q.query(`ALTER TABLE "deliveries" ADD "scheduled_for" TIMESTAMP WITH TIME ZONE`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "deliveries" DROP COLUMN "scheduled_for"`);
    for (const column of ['localizations', 'canceled_at', 'send_at', 'fanout_cursor', 'tags', 'installation_ids', 'recipient_kind']) {
      await q.query(`ALTER TABLE "notifications" DROP COLUMN "${column}"`);
    }
    await q.query(`DROP INDEX "installations_tags_idx"`);
    await q.query(`ALTER TABLE "installations" DROP COLUMN "tags"`);
  }
}
