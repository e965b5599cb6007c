import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `deliveries` and `notification_events` become tables partitioned by week on
 * `notification_started_at`, a copy of the notification's `processing_started_at` (set once, when
 * its fan-out begins), so that retention (docs/api.md#data-lifecycle) drops a week of rows as one partition
 * instead of deleting them one by one: brief locks, no dead rows left behind (docs/operations.md).
 * Every row of a notification lies in one partition, and statements that know the notification
 * can name it. The key joins both primary keys (PostgreSQL requires it); since it follows from
 * `notification_id`, uniqueness per (notification, installation) is unchanged.
 *
 * Existing rows are copied into one partition that ends where the current week begins; the worker
 * (RetentionService) creates the weeks ahead and drops the old ones, this one included. Partitions
 * get the fillfactor of 50 that DeliveriesHotUpdates gave the table (a partitioned parent has no
 * storage of its own to set it on).
 */
export class PartitionedDeliveries1764200000000 implements MigrationInterface {
  name = 'PartitionedDeliveries1764200000000';

  async up(q: QueryRunner): Promise<void> {
    // A notification has rows only once its fan-out began, which set processing_started_at; this
    // makes sure of it for any row written otherwise (by hand, by an older version).
    await q.query(`
      UPDATE notifications n SET processing_started_at = n.created_at
      WHERE n.processing_started_at IS NULL
        AND (EXISTS (SELECT 1 FROM deliveries d WHERE d.notification_id = n.id)
          OR EXISTS (SELECT 1 FROM notification_events e WHERE e.notification_id = n.id))`);

    await q.query(`ALTER TABLE "deliveries" RENAME TO "deliveries_unpartitioned"`);
    await q.query(`ALTER INDEX "deliveries_pkey" RENAME TO "deliveries_unpartitioned_pkey"`);
    await q.query(`ALTER INDEX "deliveries_notification_id_batch_idx" RENAME TO "deliveries_unpartitioned_batch_idx"`);
    await q.query(`ALTER TABLE "notification_events" RENAME TO "notification_events_unpartitioned"`);
    await q.query(`ALTER INDEX "notification_events_pkey" RENAME TO "notification_events_unpartitioned_pkey"`);

    await q.query(`
      CREATE TABLE "deliveries" (
        "notification_id" uuid NOT NULL,
        "installation_id" uuid NOT NULL,
        "notification_started_at" TIMESTAMP WITH TIME ZONE NOT NULL,
        "platform" character varying(16) NOT NULL,
        "batch" integer NOT NULL,
        "status" character varying(16) NOT NULL,
        "reason" character varying(255),
        "attempts" integer NOT NULL DEFAULT 0,
        "next_attempt_at" TIMESTAMP WITH TIME ZONE,
        "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        CONSTRAINT "deliveries_pkey" PRIMARY KEY ("notification_id", "installation_id", "notification_started_at"),
        CONSTRAINT "deliveries_notification_id_fkey" FOREIGN KEY ("notification_id") REFERENCES "notifications"("id") ON DELETE CASCADE,
        CONSTRAINT "deliveries_installation_id_fkey" FOREIGN KEY ("installation_id") REFERENCES "installations"("id") ON DELETE CASCADE
      ) PARTITION BY RANGE ("notification_started_at")`);
    await q.query(`CREATE INDEX "deliveries_notification_id_batch_idx" ON "deliveries" ("notification_id", "batch")`);
    await q.query(`
      CREATE TABLE "notification_events" (
        "notification_id" uuid NOT NULL,
        "installation_id" uuid NOT NULL,
        "type" character varying(16) NOT NULL,
        "notification_started_at" TIMESTAMP WITH TIME ZONE NOT NULL,
        "occurred_at" TIMESTAMP WITH TIME ZONE NOT NULL,
        "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        CONSTRAINT "notification_events_pkey" PRIMARY KEY ("notification_id", "installation_id", "type", "notification_started_at"),
        CONSTRAINT "notification_events_notification_id_fkey" FOREIGN KEY ("notification_id") REFERENCES "notifications"("id") ON DELETE CASCADE,
        CONSTRAINT "notification_events_installation_id_fkey" FOREIGN KEY ("installation_id") REFERENCES "installations"("id") ON DELETE CASCADE
      ) PARTITION BY RANGE ("notification_started_at")`);

    // Weeks begin on Monday 00:00 UTC (date_trunc('week')), as RetentionService's do. The bounds
    // go back as text with their offset, so they read back as the same instants.
    const [{ week, from, to }]: { week: string; from: string; to: string }[] = await q.query(`
      SELECT to_char(w, 'YYYYMMDD') AS week, (w AT TIME ZONE 'UTC')::text AS from, ((w + interval '7 days') AT TIME ZONE 'UTC')::text AS to
      FROM date_trunc('week', now() AT TIME ZONE 'UTC') AS w`);
    for (const table of ['deliveries', 'notification_events']) {
      const fill = table === 'deliveries' ? ' WITH (fillfactor = 50)' : '';
      await q.query(`CREATE TABLE "${table}_before_${week}" PARTITION OF "${table}" FOR VALUES FROM (MINVALUE) TO ('${from}')${fill}`);
      await q.query(`CREATE TABLE "${table}_p${week}" PARTITION OF "${table}" FOR VALUES FROM ('${from}') TO ('${to}')${fill}`);
    }

    await q.query(`
      INSERT INTO deliveries (notification_id, installation_id, notification_started_at, platform, batch, status, reason, attempts, next_attempt_at, updated_at)
      SELECT d.notification_id, d.installation_id, n.processing_started_at, d.platform, d.batch, d.status, d.reason, d.attempts, d.next_attempt_at, d.updated_at
      FROM deliveries_unpartitioned d JOIN notifications n ON n.id = d.notification_id`);
    await q.query(`
      INSERT INTO notification_events (notification_id, installation_id, type, notification_started_at, occurred_at, created_at)
      SELECT e.notification_id, e.installation_id, e.type, n.processing_started_at, e.occurred_at, e.created_at
      FROM notification_events_unpartitioned e JOIN notifications n ON n.id = e.notification_id`);
    await q.query(`DROP TABLE "notification_events_unpartitioned"`);
    await q.query(`DROP TABLE "deliveries_unpartitioned"`);

    // Retention finds a week's notifications by when they started; the column is written once, so
    // the statistics updates that follow stay free to be heap-only.
    await q.query(`CREATE INDEX "notifications_processing_started_at_idx" ON "notifications" ("processing_started_at")`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX "notifications_processing_started_at_idx"`);
    await q.query(`ALTER TABLE "deliveries" RENAME TO "deliveries_partitioned"`);
    await q.query(`ALTER INDEX "deliveries_pkey" RENAME TO "deliveries_partitioned_pkey"`);
    await q.query(`ALTER INDEX "deliveries_notification_id_batch_idx" RENAME TO "deliveries_partitioned_batch_idx"`);
    await q.query(`ALTER TABLE "notification_events" RENAME TO "notification_events_partitioned"`);
    await q.query(`ALTER INDEX "notification_events_pkey" RENAME TO "notification_events_partitioned_pkey"`);
    await q.query(`
      CREATE TABLE "deliveries" (
        "notification_id" uuid NOT NULL,
        "installation_id" uuid NOT NULL,
        "platform" character varying(16) NOT NULL,
        "batch" integer NOT NULL,
        "status" character varying(16) NOT NULL,
        "reason" character varying(255),
        "attempts" integer NOT NULL DEFAULT 0,
        "next_attempt_at" TIMESTAMP WITH TIME ZONE,
        "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        CONSTRAINT "deliveries_pkey" PRIMARY KEY ("notification_id", "installation_id"),
        CONSTRAINT "deliveries_notification_id_fkey" FOREIGN KEY ("notification_id") REFERENCES "notifications"("id") ON DELETE CASCADE,
        CONSTRAINT "deliveries_installation_id_fkey" FOREIGN KEY ("installation_id") REFERENCES "installations"("id") ON DELETE CASCADE
      ) WITH (fillfactor = 50)`);
    await q.query(`CREATE INDEX "deliveries_notification_id_batch_idx" ON "deliveries" ("notification_id", "batch")`);
    await q.query(`
      CREATE TABLE "notification_events" (
        "notification_id" uuid NOT NULL,
        "installation_id" uuid NOT NULL,
        "type" character varying(16) NOT NULL,
        "occurred_at" TIMESTAMP WITH TIME ZONE NOT NULL,
        "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        CONSTRAINT "notification_events_pkey" PRIMARY KEY ("notification_id", "installation_id", "type"),
        CONSTRAINT "notification_events_notification_id_fkey" FOREIGN KEY ("notification_id") REFERENCES "notifications"("id") ON DELETE CASCADE,
        CONSTRAINT "notification_events_installation_id_fkey" FOREIGN KEY ("installation_id") REFERENCES "installations"("id") ON DELETE CASCADE
      )`);
    await q.query(`
      INSERT INTO deliveries (notification_id, installation_id, platform, batch, status, reason, attempts, next_attempt_at, updated_at)
      SELECT notification_id, installation_id, platform, batch, status, reason, attempts, next_attempt_at, updated_at FROM deliveries_partitioned`);
    await q.query(`
      INSERT INTO notification_events (notification_id, installation_id, type, occurred_at, created_at)
      SELECT notification_id, installation_id, type, occurred_at, created_at FROM notification_events_partitioned`);
    await q.query(`DROP TABLE "notification_events_partitioned"`);
    await q.query(`DROP TABLE "deliveries_partitioned"`);
  }
}
