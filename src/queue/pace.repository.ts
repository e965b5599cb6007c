import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { named } from '../common/sql/named';
import { GenerateSql, SqlFile } from '../queries/generate-sql';

/**
 * The GCRA step of pace-limiter.ts in one statement: the instant used up to moves to
 * max(used, now) + share; the turn is max(used - share / 2, now), which is max(new - 1.5 share, now)
 * whether the row was new, behind `now` or ahead of it. Rows are kept an hour past their instant.
 */
const TAKE = `INSERT INTO pace_turns AS p (key, used_until, expires_at)
  VALUES (:key, :now::float8 + :share::float8, :now::float8 + :share::float8 + 3600000)
  ON CONFLICT (key) DO UPDATE
    SET used_until = greatest(p.used_until, :now::float8) + :share::float8,
        expires_at = greatest(p.used_until, :now::float8) + :share::float8 + 3600000
  RETURNING ceil(greatest(used_until - 1.5 * :share::float8, :now::float8) - :now::float8)::int AS wait_ms`;

const GIVE_BACK = `UPDATE pace_turns SET used_until = used_until - :ms::float8 WHERE key = :key`;

const PURGE = `DELETE FROM pace_turns WHERE expires_at < :now::float8`;

/** Pacing's state on PostgreSQL (QUEUE_BACKEND=postgres): one row per paced send, table pace_turns. */
@SqlFile('pace.repository.sql')
@Injectable()
export class PaceRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /** 0 when the share may go now, else the ms until its turn. */
  @GenerateSql({ params: ['pns:pace:00000000-0000-4000-8000-000000000001', 1_700_000_000_000, 600], answers: [[{ wait_ms: 0 }]] })
  async take(key: string, now: number, share: number): Promise<number> {
    const q = named(TAKE, { key, now, share });
    const [row] = await this.db.query<{ wait_ms: number }[]>(q.text, q.values);
    return row.wait_ms;
  }

  @GenerateSql({ params: ['pns:pace:00000000-0000-4000-8000-000000000001', 600] })
  async giveBack(key: string, ms: number): Promise<void> {
    const q = named(GIVE_BACK, { key, ms });
    await this.db.query(q.text, q.values);
  }

  /** Drops the rows of sends paced over an hour ago. */
  @GenerateSql({ params: [1_700_000_000_000] })
  async purge(now: number): Promise<void> {
    const q = named(PURGE, { now });
    await this.db.query(q.text, q.values);
  }
}
