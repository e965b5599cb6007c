import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { compileFilter, notSendable, recipientsPredicate, topicSql } from '../../common/audience-sql';
import { FilterNode } from '../../common/audience-filter';
import { Platform } from '../../common/platform';
import { boundedTransaction } from '../../common/sql/bounded';
import { Permission, RecipientKind } from '../../common/vocabulary';
import { EnvironmentVariables } from '../../config/env';
import { GenerateSql, SqlFile } from '../../queries/generate-sql';
import { AT, FILTER, ID } from '../../queries/fixtures';

/** The recipients of a count: a kind and its value. */
export type Audience =
  | { kind: Exclude<RecipientKind, 'filter' | 'all' | 'topic'>; list: string[] }
  | { kind: 'filter'; filter: FilterNode; now: Date }
  | { kind: 'all' }
  | { kind: 'topic'; topic: string };

/** One row per platform, and the total (platform null), from one scan (GROUPING SETS). */
export interface AudienceCountRow {
  platform: Platform | null;
  installations: number;
  sendable: number;
  users: number;
}

/** What a send would deliver to (docs/api.md#delivery): none of the fan-out's reasons to skip; 'denied' is $2. */
const skip = notSendable('$2::text');
const SENDABLE = `NOT (${skip.denied} OR ${skip.invalidated} OR (${skip.noToken}))`;

/** Counts of the installations a send's recipients select (docs/api.md#count-an-audience); the fan-out selects with the same predicates. */
@Injectable()
@SqlFile('audiences.repository.sql', (db) => new AudiencesRepository(db, { AUDIENCE_STATEMENT_TIMEOUT_MS: 10000 } as EnvironmentVariables))
export class AudiencesRepository {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly config: EnvironmentVariables,
  ) {}

  @GenerateSql({ name: 'user_ids', params: [ID, { kind: 'user_ids', list: ['user-1'] }] })
  @GenerateSql({ name: 'tags', params: [ID, { kind: 'tags', list: ['beta'] }] })
  @GenerateSql({ name: 'filter', params: [ID, { kind: 'filter', filter: FILTER, now: AT }] })
  @GenerateSql({ name: 'all', params: [ID, { kind: 'all' }] })
  @GenerateSql({ name: 'topic', params: [ID, { kind: 'topic', topic: 'promotions' }] })
  /** Stops at AUDIENCE_STATEMENT_TIMEOUT_MS (AudienceTimedOutError), or when `signal` aborts. */
  count(appId: string, audience: Audience, signal?: AbortSignal): Promise<AudienceCountRow[]> {
    const { where, params } = selected(audience, 3);
    return boundedTransaction(this.db, this.config.AUDIENCE_STATEMENT_TIMEOUT_MS, signal, (manager) =>
      manager.query(
        `SELECT i.platform, count(*)::int AS installations, count(*) FILTER (WHERE ${SENDABLE})::int AS sendable, count(DISTINCT i.user_id)::int AS users
       FROM installations i
       WHERE i.app_id = $1 AND i.deleted_at IS NULL${where}
       GROUP BY GROUPING SETS ((i.platform), ())`,
        [appId, 'denied' satisfies Permission, ...params],
      ),
    );
  }
}

function selected(audience: Audience, p: number): { where: string; params: unknown[] } {
  switch (audience.kind) {
    case 'all':
      return { where: '', params: [] };
    case 'filter': {
      const filter = compileFilter(audience.filter, p, audience.now);
      return { where: ` AND ${filter.sql}`, params: filter.params };
    }
    case 'user_ids':
    case 'installation_ids':
    case 'tags':
      return { where: ` AND ${recipientsPredicate(audience.kind, `$${p}`)}`, params: [audience.list] };
    case 'topic': {
      // The subscribers as the fan-out walks them, all at once.
      const topic = topicSql('$1', `$${p}::text`);
      return {
        where: ` AND i.user_id IN (SELECT w.user_id FROM ${topic.subscribersAfter("''", 'NULL')} w) AND NOT ${topic.unsubscribed}`,
        params: [audience.topic],
      };
    }
  }
}
