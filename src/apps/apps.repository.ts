import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

/** An `apps` row as PostgreSQL returns it. */
export interface AppRow {
  id: string;
  name: string;
  created_at: Date;
}

/** What a deleted app held. */
export interface DeletedCounts {
  tokens: number;
  installations: number;
  notifications: number;
  deliveries: number;
}

/** The `apps` table. */
@Injectable()
export class AppsRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  async insert(name: string): Promise<AppRow> {
    const [row] = await this.db.query<[AppRow]>(`INSERT INTO apps (name) VALUES ($1) RETURNING id, name, created_at`, [name]);
    return row;
  }

  list(): Promise<AppRow[]> {
    return this.db.query<AppRow[]>(`SELECT id, name, created_at FROM apps ORDER BY created_at, id`);
  }

  async find(id: string): Promise<AppRow | undefined> {
    const [row] = await this.db.query<AppRow[]>(`SELECT id, name, created_at FROM apps WHERE id = $1`, [id]);
    return row;
  }

  /**
   * Deletes the app; the foreign keys cascade to its tokens, credentials, installations,
   * notifications, deliveries, events and idempotency keys, in this one statement. Counts what it
   * held, read in the same statement (same snapshot). Undefined when there is no such app.
   */
  async delete(id: string): Promise<(AppRow & DeletedCounts) | undefined> {
    const [row]: (AppRow & DeletedCounts)[] = await this.db.query(
      `WITH held AS (
         SELECT (SELECT count(*) FROM api_tokens WHERE app_id = $1)::int AS tokens,
                (SELECT count(*) FROM installations WHERE app_id = $1)::int AS installations,
                (SELECT count(*) FROM notifications WHERE app_id = $1)::int AS notifications,
                (SELECT count(*) FROM deliveries d JOIN notifications n ON n.id = d.notification_id WHERE n.app_id = $1)::int AS deliveries
       ), gone AS (
         DELETE FROM apps WHERE id = $1 RETURNING id, name, created_at
       )
       SELECT gone.*, held.* FROM gone, held`,
      [id],
    );
    return row;
  }

  async exists(id: string): Promise<boolean> {
    const rows: unknown[] = await this.db.query(`SELECT 1 FROM apps WHERE id = $1`, [id]);
    return rows.length > 0;
  }
}
