import { Logger } from '@nestjs/common';
import { newTestService } from '../../test/support/new-test-service';
import { CompletionReportRepository, CompletionSummaryRow } from './completion-report.repository';
import { CompletionReportService } from './completion-report.service';

const summary = (extra: Partial<CompletionSummaryRow> = {}): CompletionSummaryRow => ({
  app_id: 'app-1',
  installations: 10,
  accepted: 10,
  failed: 0,
  skipped: 0,
  duration_ms: 1234.6,
  reasons: [],
  ...extra,
});

/** The completion log line (docs/operations.md "Logs"), with the report query faked. */
describe('CompletionReportService', () => {
  let info: jest.SpyInstance;
  let warn: jest.SpyInstance;
  beforeEach(() => {
    info = jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
    warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
  });
  afterEach(() => jest.restoreAllMocks());

  it('logs one info line per completed notification with its counters, the duration rounded', async () => {
    const { sut, mocks } = newTestService(CompletionReportService);
    mocks.get(CompletionReportRepository).summary.mockResolvedValue(summary());
    await sut.completed(['n1', 'n2']);
    expect(info).toHaveBeenCalledTimes(2);
    expect(info.mock.calls[0][0]).toEqual({
      msg: 'Notification completed',
      notification_id: 'n1',
      app_id: 'app-1',
      installations: 10,
      accepted: 10,
      failed: 0,
      skipped: 0,
      duration_ms: 1235,
      failure_reasons: [],
      skip_reasons: [],
    });
    expect(warn).not.toHaveBeenCalled();
  });

  it('warns when something failed, naming the five most frequent reasons per kind and the rest as other', async () => {
    const { sut, mocks } = newTestService(CompletionReportService);
    const failed = ['A', 'B', 'C', 'D', 'E', 'F', 'G'].map((reason, i) => ({ status: 'failed' as const, reason, count: 10 - i }));
    mocks
      .get(CompletionReportRepository)
      .summary.mockResolvedValue(summary({ failed: 60, skipped: 2, reasons: [...failed, { status: 'skipped', reason: 'NoToken', count: 2 }] }));
    await sut.completed(['n1']);
    expect(info).not.toHaveBeenCalled();
    const line = warn.mock.calls[0][0];
    expect(line.failure_reasons).toEqual([
      { reason: 'A', count: 10 },
      { reason: 'B', count: 9 },
      { reason: 'C', count: 8 },
      { reason: 'D', count: 7 },
      { reason: 'E', count: 6 },
      { reason: 'other', count: 9 },
    ]);
    expect(line.skip_reasons).toEqual([{ reason: 'NoToken', count: 2 }]);
  });

  it('never throws: a notification gone is left out, a report that cannot be read is a warning, and the next is still reported', async () => {
    const { sut, mocks } = newTestService(CompletionReportService);
    mocks
      .get(CompletionReportRepository)
      .summary.mockResolvedValueOnce(undefined)
      .mockRejectedValueOnce(new Error('connection lost'))
      .mockResolvedValueOnce(summary());
    await expect(sut.completed(['gone', 'broken', 'fine'])).resolves.toBeUndefined();
    expect(warn).toHaveBeenCalledWith('Notification broken completed; its report could not be read: connection lost');
    expect(info.mock.calls.map(([line]) => line.notification_id)).toEqual(['fine']);
  });
});
