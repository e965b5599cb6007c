import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import type { NotificationOptions } from '../../common/notification-options';
import type { StoredVariant } from '../../common/variants';
import type { RecipientKind } from '../../common/vocabulary';
import { GenerateSql, SqlFile } from '../../queries/generate-sql';
import { ID, OTHER_ID } from '../../queries/fixtures';

/** A due send as its group claimed it (docs/api.md#due-sends): what decides whether it is fanned out in the group. */
export interface ClaimedDueSend {
  id: string;
  app_id: string;
  recipient_kind: RecipientKind;
  user_ids: string[];
  installation_ids: string[] | null;
  options: NotificationOptions | null;
  send_at: Date;
  /** Its variants (docs/api.md#variants): a send with variants is never a small send. */
  variants: StoredVariant[] | null;
  /** A send without `notification` (docs/api.md#silent-sends). */
  silent: boolean;
  /** Its place among its app's due sends, from 1: the group takes every app's first before any app's second. */
  turn: number;
}

/**
 * The next `$1` due sends, app by app (row_number() per app, lowest first; within an app by send_at,
 * then acceptance), skipping those another claim holds; marked started, which takes them out of the
 * next claim. Only unstarted, uncancelled sends whose send_at has come: a cancel runs its own
 * fan-out (docs/api.md#scheduling).
 */
const CLAIM_SQL = `
  WITH ranked AS (
    SELECT id, send_at, created_at, row_number() OVER (PARTITION BY app_id ORDER BY send_at, created_at, id) AS turn
    FROM notifications
    WHERE completed_at IS NULL AND fanned_out_at IS NULL AND processing_started_at IS NULL AND canceled_at IS NULL
      AND send_at <= now()
  ), picked AS (
    SELECT n.id, r.turn FROM notifications n
    JOIN (SELECT id, turn, send_at, created_at FROM ranked ORDER BY turn, send_at, created_at, id LIMIT $1 * 4) r ON r.id = n.id
    WHERE n.processing_started_at IS NULL AND n.canceled_at IS NULL AND n.fanned_out_at IS NULL
    ORDER BY r.turn, r.send_at, r.created_at, r.id
    LIMIT $1
    FOR UPDATE OF n SKIP LOCKED
  ), claimed AS (
    UPDATE notifications n SET processing_started_at = now()
    FROM picked WHERE n.id = picked.id
    RETURNING n.id, n.app_id, n.recipient_kind, n.user_ids, n.installation_ids, n.options, n.send_at, n.variants, n.title IS NULL AS silent
  )
  SELECT c.*, p.turn::int AS turn FROM claimed c JOIN picked p ON p.id = c.id ORDER BY p.turn, c.send_at, c.id`;

const CLAIMED: ClaimedDueSend = {
  id: ID,
  app_id: OTHER_ID,
  recipient_kind: 'user_ids',
  user_ids: ['user-1'],
  installation_ids: null,
  options: null,
  send_at: new Date('2026-01-05T00:00:00.000Z'),
  variants: null,
  silent: false,
  turn: 1,
};

/** Due sends claimed in groups (docs/api.md#due-sends), each group one transaction. */
@Injectable()
@SqlFile('due-sends.repository.sql')
export class DueSendsRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /**
   * Claims up to `limit` due sends and runs `work` on them in the claim's transaction: the rows stay
   * locked until it commits, and a worker killed before then leaves them unclaimed.
   */
  @GenerateSql({ params: [100, async () => undefined], answers: [[CLAIMED]] })
  group<T>(limit: number, work: (claimed: ClaimedDueSend[], tx: EntityManager) => Promise<T>): Promise<T> {
    return this.db.transaction(async (tx) => work(await tx.query<ClaimedDueSend[]>(CLAIM_SQL, [limit]), tx));
  }

  /** Runs `work` under a savepoint of `tx`: when it fails, what it wrote is undone and the error answered; the transaction goes on. */
  @GenerateSql({ params: [undefined, async () => undefined] })
  async attempt<T>(tx: EntityManager | undefined, work: () => Promise<T>): Promise<T | Error> {
    const manager = tx ?? this.db.manager;
    await manager.query(`SAVEPOINT due_send`);
    try {
      const result = await work();
      await manager.query(`RELEASE SAVEPOINT due_send`);
      return result;
    } catch (error) {
      await manager.query(`ROLLBACK TO SAVEPOINT due_send`);
      return error instanceof Error ? error : new Error(String(error));
    }
  }
}
