import { newTestService } from '../../../test/support/new-test-service';
import { PartitionRange } from './retention-rules';
import { RetentionRepository } from './retention.repository';
import { RetentionService } from './retention.service';

const at = (iso: string) => new Date(iso);
/** A Wednesday: its week began on Monday 2026-11-23. */
const NOW = at('2026-11-25T10:00:00Z');
const week = (table: string, monday: string): PartitionRange => {
  const from = at(`${monday}T00:00:00Z`);
  return { name: `${table}_p${monday.replace(/-/g, '')}`, from, to: new Date(from.getTime() + 7 * 86_400_000) };
};
/** Every week from `first` to the current week and two ahead exists. */
const weeks = (table: string, mondays: string[]) => mondays.map((monday) => week(table, monday));
const ALL = ['2026-10-05', '2026-10-12', '2026-10-19', '2026-10-26', '2026-11-02', '2026-11-09', '2026-11-16', '2026-11-23', '2026-11-30', '2026-12-07'];

/** Data lifecycle rules (docs/api.md#data-lifecycle), with the retention statements faked. */
describe('RetentionService', () => {
  const setup = (retentionDays: number, partitions = ALL, auditDays = 365) => {
    const built = newTestService(RetentionService, { env: { RETENTION_DAYS: retentionDays, AUDIT_LOG_RETENTION_DAYS: auditDays } });
    const repository = built.mocks.get(RetentionRepository);
    repository.partitions.mockImplementation(async (table) => weeks(table, partitions));
    repository.deleteMarketingReceipts.mockResolvedValue(0);
    repository.deleteFinishedWebhookMessages.mockResolvedValue(0);
    repository.deleteFinishedBroadcasts.mockResolvedValue(0);
    repository.deleteUncovered.mockResolvedValue(0);
    repository.deleteAuditEntries.mockResolvedValue(0);
    return { sut: built.sut, repository };
  };

  it('creates the current week and the two ahead of both tables when missing; a create that waited too long for its lock is left for the next run', async () => {
    const { sut, repository } = setup(0, ['2026-11-23']);
    repository.createPartition.mockImplementation(async (_table, name) => {
      if (name === 'notification_events_p20261207') throw Object.assign(new Error('canceling statement due to lock timeout'), { code: '55P03' });
    });
    const report = await sut.run(NOW);
    expect(report.partitionsCreated).toEqual(['deliveries_p20261130', 'deliveries_p20261207', 'notification_events_p20261130']);
    expect(repository.createPartition).toHaveBeenCalledWith('deliveries', 'deliveries_p20261130', at('2026-11-30T00:00:00Z'), at('2026-12-07T00:00:00Z'));

    repository.createPartition.mockRejectedValueOnce(new Error('permission denied'));
    await expect(sut.run(NOW)).rejects.toThrow('permission denied');
  });

  it('with RETENTION_DAYS=0 keeps every notification, but still forgets marketing receipts past the longest cap window (720 hours)', async () => {
    const { sut, repository } = setup(0);
    repository.deleteMarketingReceipts.mockResolvedValueOnce(3);
    const report = await sut.run(NOW);
    expect(repository.weekHolds).not.toHaveBeenCalled();
    expect(repository.deleteFinishedWebhookMessages).not.toHaveBeenCalled();
    expect(repository.deleteFinishedBroadcasts).not.toHaveBeenCalled();
    expect(report).toMatchObject({ weeksDropped: [], notificationsDeleted: 0, marketingReceiptsDeleted: 3 });
    expect(repository.deleteMarketingReceipts).toHaveBeenCalledWith(new Date(NOW.getTime() - 720 * 3_600_000), 5000);
  });

  it('drops each due week no notification holds, keeps the held ones, and deletes what the dropped weeks leave', async () => {
    const { sut, repository } = setup(30);
    // Cutoff 2026-10-26T10:00Z: the weeks ending by then are due (10-05, 10-12, 10-19).
    repository.weekHolds.mockImplementation(async (w) => ({ notifications: 4, held: w.name.endsWith('20261019') ? 1 : 0 }));
    repository.dropWeek.mockResolvedValue({ notifications: 4, deliveries: 100, events: 7 });
    repository.deleteUncovered.mockResolvedValue(2);
    repository.deleteFinishedWebhookMessages.mockResolvedValue(5);
    repository.deleteFinishedBroadcasts.mockResolvedValue(3);

    const report = await sut.run(NOW);
    expect(repository.weekHolds.mock.calls.map(([w]) => w.name)).toEqual(['deliveries_p20261005', 'deliveries_p20261012', 'deliveries_p20261019']);
    expect(report).toMatchObject({
      weeksDropped: ['deliveries_p20261005', 'deliveries_p20261012'],
      weeksKept: ['deliveries_p20261019'],
      deliveriesDeleted: 200,
      eventsDeleted: 14,
      notificationsDeleted: 2,
      webhookMessagesDeleted: 5,
      broadcastsDeleted: 3,
    });
    const cutoff = at('2026-10-26T10:00:00Z');
    expect(repository.deleteFinishedWebhookMessages).toHaveBeenCalledWith(cutoff, 5000);
    expect(repository.deleteFinishedBroadcasts).toHaveBeenCalledWith(cutoff, 5000);
    // What is left to delete row by row lies in the partitions that stay.
    expect(repository.deleteUncovered.mock.calls[0][1].map((p) => p.name)).not.toContain('deliveries_p20261005');
    expect(repository.deleteUncovered.mock.calls[0][1].map((p) => p.name)).toContain('deliveries_p20261019');
    // Held for less than a week past its time: waited for, not deleted row by row.
    expect(repository.expiredInWeek).not.toHaveBeenCalled();
  });

  it('deletes row by row the expired notifications of a week a late one has held for over a week', async () => {
    const { sut, repository } = setup(30);
    repository.weekHolds.mockImplementation(async (w) => ({ notifications: 3, held: w.name.endsWith('20261005') ? 1 : 0 }));
    repository.dropWeek.mockResolvedValue({ notifications: 0, deliveries: 0, events: 0 });
    repository.expiredInWeek.mockResolvedValue(['expired-1', 'expired-2']);
    // Each notification: one statement of rows per table, then an empty one.
    repository.deleteRows
      .mockImplementation(async () => 0)
      .mockResolvedValueOnce(40)
      .mockResolvedValueOnce(0)
      .mockResolvedValueOnce(6);

    const report = await sut.run(NOW);
    expect(repository.expiredInWeek).toHaveBeenCalledWith(week('deliveries', '2026-10-05'), at('2026-10-26T10:00:00Z'), 100);
    expect(repository.deleteNotification.mock.calls).toEqual([['expired-1'], ['expired-2']]);
    expect(report).toMatchObject({ weeksKept: ['deliveries_p20261005'], notificationsDeleted: 2, deliveriesDeleted: 40, eventsDeleted: 6 });
  });

  it('keeps deleting marketing receipts in statements of 5,000 while they come full', async () => {
    const { sut, repository } = setup(0);
    repository.deleteMarketingReceipts.mockResolvedValueOnce(5000).mockResolvedValueOnce(5000).mockResolvedValueOnce(12);
    expect((await sut.run(NOW)).marketingReceiptsDeleted).toBe(10_012);
    expect(repository.deleteMarketingReceipts).toHaveBeenCalledTimes(3);
  });

  it('deletes audit log entries older than AUDIT_LOG_RETENTION_DAYS whatever RETENTION_DAYS, and none with 0', async () => {
    const { sut, repository } = setup(0);
    repository.deleteAuditEntries.mockResolvedValueOnce(3);
    expect((await sut.run(NOW)).auditEntriesDeleted).toBe(3);
    expect(repository.deleteAuditEntries).toHaveBeenCalledWith(new Date(NOW.getTime() - 365 * 86_400_000), 5000);
    const kept = setup(0, ALL, 0);
    expect((await kept.sut.run(NOW)).auditEntriesDeleted).toBe(0);
    expect(kept.repository.deleteAuditEntries).not.toHaveBeenCalled();
  });
});
