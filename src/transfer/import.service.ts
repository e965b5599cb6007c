import { Injectable } from '@nestjs/common';
import { parse } from 'csv-parse';
import type { Readable } from 'node:stream';
import { DomainError } from '../common/errors';
import { INSTALLATION_ID } from '../common/validation/domain-rules';
import { RequestValidationPipe } from '../common/validation/request-validation.pipe';
import { RegisterInstallationDto } from '../installations/dto/installation.dto';
import { newInstallationOf, registrationErrors } from '../installations/installations.service';
import { formatReader, ImportedLine, ImportFormat, LineRefused } from './import-formats';
import { ImportOutcome, ImportRow, TransferRepository } from './transfer.repository';

/** The summary lists at most this many skipped lines; `skipped_count` counts them all. */
export const SKIPPED_LISTED = 100;

export interface ImportSummary {
  read: number;
  created: number;
  updated: number;
  unchanged: number;
  skipped: { line: number; reason: string }[];
  skipped_count: number;
  dry_run: boolean;
}

export interface ImportOptions {
  dryRun: boolean;
  /** Lines a statement writes (docs/api.md#import). */
  batchSize?: number;
  /** Called every `progressEvery` lines read, with the summary so far. */
  onProgress?: (summary: ImportSummary) => void;
  progressEvery?: number;
}

const body = { type: 'body' as const, metatype: RegisterInstallationDto };

/**
 * `pns import` (docs/api.md#import): streams a CSV through csv-parse, reads each record in its
 * format, checks it with the installations' own rules (the request pipe's DTO validation and
 * registrationErrors) and writes batches through TransferRepository. A line is written whole or
 * skipped with its reason; memory holds one batch, whatever the file's length.
 */
@Injectable()
export class ImportService {
  private readonly pipe = new RequestValidationPipe();

  constructor(private readonly transfer: TransferRepository) {}

  async import(appId: string, format: ImportFormat, input: Readable, options: ImportOptions): Promise<ImportSummary> {
    const summary: ImportSummary = { read: 0, created: 0, updated: 0, unchanged: 0, skipped: [], skipped_count: 0, dry_run: options.dryRun };
    const skip = (line: number, reason: string) => {
      summary.skipped_count++;
      if (summary.skipped.length < SKIPPED_LISTED) summary.skipped.push({ line, reason });
    };
    const batchSize = options.batchSize ?? 1000;
    const progressEvery = options.progressEvery ?? 50_000;
    const reader = formatReader(format);
    let batch = new Map<string, ImportRow>();
    // One batch is written while the next is read and checked: the database's work and ours overlap.
    let writing: Promise<void> = Promise.resolve();
    const record = (outcomes: Awaited<ReturnType<ImportService['write']>>) => {
      for (const outcome of outcomes) {
        if (outcome.outcome === 'platform_differs') {
          skip(outcome.line, `the installation exists as ${outcome.stored_platform}; its platform cannot change`);
        } else if (outcome.outcome !== 'refused') {
          summary[outcome.outcome]++;
        } else {
          skip(outcome.line, outcome.reason);
        }
      }
    };
    const flush = async () => {
      await writing;
      if (batch.size === 0) return;
      const rows = [...batch.values()];
      batch = new Map();
      writing = this.write(appId, rows, options.dryRun).then(record);
    };

    const parser = input.pipe(
      parse({
        bom: true,
        relax_column_count: true,
        skip_empty_lines: true,
        info: true,
        skip_records_with_error: true,
        // A line the CSV grammar refuses (an unclosed quote, say) is skipped; the parser goes on.
        on_skip: (error) => {
          summary.read++;
          skip((error as { lines?: number } | undefined)?.lines ?? 0, `not CSV: ${error?.message ?? 'unreadable'}`);
        },
      }),
    );
    let first = true;
    for await (const { record, info } of parser as AsyncIterable<{ record: string[]; info: { lines: number } }>) {
      const line = info.lines;
      if (first) {
        first = false;
        let header: boolean;
        try {
          header = reader.header(record);
        } catch (error) {
          if (error instanceof LineRefused) throw new ImportRefused(`line ${line}: ${error.message}`);
          throw error;
        }
        if (header) continue;
      }
      summary.read++;
      const row = await this.check(reader, record, line).catch((error: unknown) => {
        if (error instanceof LineRefused || error instanceof DomainError) return error.message;
        throw error;
      });
      if (typeof row === 'string') {
        skip(line, row);
      } else {
        // A file that repeats an id writes its lines in order: the batch so far goes first.
        if (batch.has(row.installationId)) await flush();
        batch.set(row.installationId, row);
        if (batch.size >= batchSize) await flush();
      }
      if (summary.read % progressEvery === 0) options.onProgress?.(summary);
    }
    await flush();
    await writing;
    if (first) throw new ImportRefused('the file is empty');
    summary.skipped.sort((a, b) => a.line - b.line);
    return summary;
  }

  /** The line read in its format and checked by the installations' rules; throws LineRefused or ValidationFailedError. */
  private async check(reader: ReturnType<typeof formatReader>, cells: string[], line: number): Promise<ImportRow> {
    const read: ImportedLine = reader.read(cells);
    const idProblem = INSTALLATION_ID(read.installationId);
    if (idProblem) throw new LineRefused(idProblem.replaceAll(':attribute', 'installation_id'));
    const dto = (await this.pipe.transform(read.body, body)) as RegisterInstallationDto;
    const errors = registrationErrors(dto);
    const field = Object.keys(errors)[0];
    if (field) throw new LineRefused(errors[field][0]);
    return {
      line,
      installationId: read.installationId,
      values: newInstallationOf(dto),
      registeredAt: read.registeredAt,
      lastSeenAt: read.lastSeenAt,
      identifierUpdatedAt: read.identifierUpdatedAt,
      permissionUpdatedAt: read.permissionUpdatedAt,
      invalidatedAt: read.invalidatedAt,
      invalidReason: read.invalidReason,
    };
  }

  /** One statement for the batch; should the database refuse it, each line alone, so one bad line costs only itself. */
  private async write(appId: string, rows: ImportRow[], dryRun: boolean): Promise<(ImportOutcome | { line: number; outcome: 'refused'; reason: string })[]> {
    try {
      return await this.transfer.write(appId, rows, dryRun);
    } catch (error) {
      if (rows.length === 1) return [{ line: rows[0].line, outcome: 'refused', reason: `refused by the database: ${(error as Error).message}` }];
      const outcomes = [];
      for (const row of rows) outcomes.push(...(await this.write(appId, [row], dryRun)));
      return outcomes;
    }
  }
}

/** The file as a whole cannot be imported (no header of the format, empty). */
export class ImportRefused extends Error {}
