import { readdirSync } from 'node:fs';
import { AdminRepository } from '../admin/admin.repository';
import { AppsRepository } from '../apps/apps.repository';
import { TokensRepository } from '../auth/tokens.repository';
import { CredentialsRepository } from '../credentials/credentials.repository';
import { CompletionReportRepository } from '../delivery/completion-report.repository';
import { DeliveriesRepository } from '../delivery/deliver/deliveries.repository';
import { FanOutRepository } from '../delivery/fan-out/fan-out.repository';
import { RetentionRepository } from '../delivery/retention/retention.repository';
import { SweeperRepository } from '../delivery/sweeper/sweeper.repository';
import { InstallationsRepository } from '../installations/installations.repository';
import { DeliveryTraceRepository } from '../notifications/trace/delivery-trace.repository';
import { NotificationsRepository } from '../notifications/notifications.repository';
import { WebhooksRepository } from '../webhooks/webhooks.repository';
import { IdempotencyRepository } from '../notifications/idempotency/idempotency.repository';
import { AudiencesRepository } from '../notifications/audiences/audiences.repository';
import { SmallSendsRepository } from '../delivery/small-sends/small-sends.repository';
import { LiveActivitiesRepository } from '../live-activities/live-activities.repository';
import { LiveActivityUpdatesRepository } from '../delivery/live-activity/live-activity-updates.repository';
import { SQL_FILES } from './sql-cases';
import { QUERIES_DIR, renderAll, stored, tidy } from './sync-sql';

/** Repositories whose every method has its case in sql-cases.ts (TokenChangesRepository only LISTENs). */
const REPOSITORIES = [
  AdminRepository,
  AppsRepository,
  TokensRepository,
  CredentialsRepository,
  CompletionReportRepository,
  DeliveriesRepository,
  FanOutRepository,
  RetentionRepository,
  SweeperRepository,
  InstallationsRepository,
  DeliveryTraceRepository,
  NotificationsRepository,
  IdempotencyRepository,
  AudiencesRepository,
  SmallSendsRepository,
  LiveActivitiesRepository,
  LiveActivityUpdatesRepository,
  WebhooksRepository,
];

/** Methods without a case of their own, and why. */
const UNCAPTURED: Record<string, string> = {
  'CredentialsRepository.find': 'TypeORM builds it (findOneBy)',
  'FanOutRepository.finish': 'private; its statements are in the case of the last nextChunk',
  'FanOutRepository.stageAudience': 'private; its statement is in the case of nextChunk (filter)',
  'FanOutRepository.unstage': 'private; its statement is in the cases of nextChunk (filter)',
  'FanOutRepository.chunkIn': 'private; its statements are in the cases of nextChunk',
  'NotificationsRepository.cancelOnce': 'private; its statements are in the case of cancel',
  'LiveActivitiesRepository.acceptWith': 'private; its statement is in the cases of accept and acceptWithResponse',
};

describe('SQL files (src/queries/*.sql)', () => {
  it('hold every repository method’s current SQL', async () => {
    const files = await renderAll();
    const stale = [...files].filter(([name, text]) => stored(name) !== text).map(([name]) => name);
    const orphans = readdirSync(QUERIES_DIR).filter((name) => name.endsWith('.sql') && !files.has(name));
    expect({ stale, orphans, fix: 'npm run sql:sync (and delete the orphans)' }).toEqual({ stale: [], orphans: [], fix: expect.any(String) });
  });

  it('have a case for every repository method', () => {
    const cased = new Set(SQL_FILES.flatMap((file) => file.cases.map((c) => c.name.split(/[ ,(]/)[0])));
    const missing = REPOSITORIES.flatMap((repository) =>
      Object.getOwnPropertyNames(repository.prototype)
        .filter((method) => method !== 'constructor')
        .map((method) => `${repository.name}.${method}`)
        .filter((name) => !cased.has(name) && !(name in UNCAPTURED)),
    );
    expect({ missing, fix: 'add a case to src/queries/sql-cases.ts, then npm run sql:sync' }).toEqual({ missing: [], fix: expect.any(String) });
  });

  it('write a statement without the indentation of the code around it', () => {
    expect(tidy(`\n  SELECT 1\n       FROM t\n       WHERE x\n         AND y  `)).toBe('SELECT 1\nFROM t\nWHERE x\n  AND y;');
  });
});
