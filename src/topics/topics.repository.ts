import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { named } from '../common/sql/named';
import { ID } from '../queries/fixtures';
import { GenerateSql, SqlFile } from '../queries/generate-sql';

/** A `topics` row as PostgreSQL returns it. */
export interface TopicRow {
  key: string;
  name: string;
  description: string | null;
  default_subscribed: boolean;
  created_at: Date;
  updated_at: Date;
}

export interface TopicFields {
  name: string;
  description: string | null;
  defaultSubscribed: boolean;
}

const COLUMNS = 'key, name, description, default_subscribed, created_at, updated_at';

/** Serialises an app's topic creations, so the count it checks is the count it keeps. */
const LOCK = `SELECT pg_advisory_xact_lock(hashtextextended('topics:' || :app_id::text, 0))`;

/** Inserts or replaces the topic; a new one only while the app has fewer than :max_topics. */
const UPSERT = `INSERT INTO topics (app_id, key, name, description, default_subscribed)
  SELECT :app_id::uuid, :key::text, :name::text, :description::text, :default_subscribed::boolean
  WHERE EXISTS (SELECT 1 FROM topics WHERE app_id = :app_id::uuid AND key = :key::text)
     OR (SELECT count(*) FROM topics WHERE app_id = :app_id::uuid) < :max_topics::int
  ON CONFLICT (app_id, key) DO UPDATE
    SET name = EXCLUDED.name, description = EXCLUDED.description, default_subscribed = EXCLUDED.default_subscribed, updated_at = now()
  RETURNING ${COLUMNS}, (xmax = 0) AS created`;

@Injectable()
@SqlFile('topics.repository.sql')
export class TopicsRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /** Undefined when the topic is new and the app already has `maxTopics`. */
  @GenerateSql({ params: [ID, 'promotions', { name: 'Promotions', description: null, defaultSubscribed: true }, 100] })
  async upsert(appId: string, key: string, fields: TopicFields, maxTopics: number): Promise<(TopicRow & { created: boolean }) | undefined> {
    return this.db.transaction(async (manager) => {
      const lock = named(LOCK, { app_id: appId });
      await manager.query(lock.text, lock.values);
      const upsert = named(UPSERT, {
        app_id: appId,
        key,
        name: fields.name,
        description: fields.description,
        default_subscribed: fields.defaultSubscribed,
        max_topics: maxTopics,
      });
      const [row] = await manager.query<(TopicRow & { created: boolean })[]>(upsert.text, upsert.values);
      return row;
    });
  }

  @GenerateSql({ params: [ID] })
  list(appId: string): Promise<TopicRow[]> {
    const q = named(`SELECT ${COLUMNS} FROM topics WHERE app_id = :app_id ORDER BY key`, { app_id: appId });
    return this.db.query<TopicRow[]>(q.text, q.values);
  }

  @GenerateSql({ params: [ID, 'promotions'] })
  async find(appId: string, key: string): Promise<TopicRow | undefined> {
    const q = named(`SELECT ${COLUMNS} FROM topics WHERE app_id = :app_id AND key = :key`, { app_id: appId, key });
    const [row] = await this.db.query<TopicRow[]>(q.text, q.values);
    return row;
  }

  /** With the users' choices for it; false when there was no such topic. */
  @GenerateSql({ params: [ID, 'promotions'], answers: [[{ deleted: 1 }]] })
  async delete(appId: string, key: string): Promise<boolean> {
    const q = named(
      `WITH gone AS (
         DELETE FROM topics WHERE app_id = :app_id AND key = :key RETURNING key
       ), choices AS (
         DELETE FROM topic_subscriptions s USING gone WHERE s.app_id = :app_id AND s.topic_key = gone.key
       )
       SELECT count(*)::int AS deleted FROM gone`,
      { app_id: appId, key },
    );
    const [row] = await this.db.query<{ deleted: number }[]>(q.text, q.values);
    return row.deleted > 0;
  }
}
