import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { insertValues, type NewNotification, type NotificationRow } from '../../common/notification';
import { preparedQuery } from '../../common/prepared-query';
import { type ChunkRow, chunkStatement, chunkStatementValues, type ChunkValues } from '../fan-out/chunk-statement';
import { GenerateSql, SqlFile } from '../../queries/generate-sql';
import { ID, NOTIFICATION, OTHER_ID } from '../../queries/fixtures';

/** A small send's statement answers the stored row and what its chunk wrote. */
export type StoredSmallSend = ChunkRow & NotificationRow;

/** A small send of one user id's chunk, as SmallSendsService.store runs it. */
const SMALL_CHUNK: Parameters<SmallSendsRepository['store']>[1] = {
  appId: OTHER_ID,
  notificationId: ID,
  batchSize: 500,
  wanted: ['ios', 'android', 'web'],
  configured: ['apns'],
  silentless: [],
  batches: 0,
  canceled: false,
  due: { zones: [], dues: [], quietSkips: [], fallback: null, fallbackQuietSkip: false },
  cap: null,
  paceMs: null,
  advanced: 1,
  walked: false,
  countUsers: true,
  channels: { push: true, inbox: true },
  topic: null,
  marketing: false,
  variants: null,
};

/** A small send's statement (docs/api.md#small-sends): the notification, its rows, its key's link. */
@Injectable()
@SqlFile('small-sends.repository.sql')
export class SmallSendsRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /**
   * Stores a small send with its rows in one prepared statement (one text per recipient kind, with
   * a key's link or without): the notification, started now, and its one chunk (every id), its
   * progress and counters in its row; under an Idempotency-Key, the key's link to it
   * (docs/decisions/0014-idempotency-key-linked-then-answered.md).
   */
  @GenerateSql({ name: 'user_ids', params: [NOTIFICATION, SMALL_CHUNK, ['user-1'], null] })
  @GenerateSql({ name: 'user_ids, under a key', params: [NOTIFICATION, SMALL_CHUNK, ['user-1'], 'key'] })
  @GenerateSql({
    name: 'installation_ids',
    params: [
      { ...NOTIFICATION, recipient_kind: 'installation_ids', user_ids: [], installation_ids: ['i-1'] },
      { ...SMALL_CHUNK, countUsers: false },
      ['i-1'],
      null,
    ],
  })
  async store(notification: NewNotification, chunk: ChunkValues, ids: string[], key: string | null): Promise<StoredSmallSend> {
    const statement = chunkStatement({ kind: notification.recipient_kind, relisted: false, stores: { keyed: key !== null } });
    const values = chunkStatementValues(statement, chunk, { ids }, { notification: insertValues(notification), key });
    const name = `store_small_${notification.recipient_kind}${key === null ? '' : '_keyed'}`;
    const { rows } = await preparedQuery<StoredSmallSend>(this.db, name, statement.text, values);
    return rows[0];
  }
}
