import { createReadStream, existsSync } from 'node:fs';
import { basename } from 'node:path';
import { Command, CommandRunner, Option } from 'nest-commander';
import { AppsService } from '../apps/apps.service';
import { isUuid } from '../common/uuid';
import { ExportService } from '../transfer/export.service';
import { IMPORT_FORMATS, type ImportFormat } from '../transfer/import-formats';
import { ImportRefused, ImportService, ImportSummary } from '../transfer/import.service';
import { AuditLog, cliActor } from '../audit/audit-log.service';
import { CliError, printJson } from './cli-error';

/** `pns import` (docs/api.md#import): the summary on stdout, progress on stderr. */
@Command({
  name: 'import',
  arguments: '<file>',
  description: "Create or update an app's installations from a OneSignal export, a Firebase-style token,platform[,user_id] CSV or our CSV",
})
export class ImportCommand extends CommandRunner {
  constructor(
    private readonly apps: AppsService,
    private readonly importer: ImportService,
    private readonly audit: AuditLog,
  ) {
    super();
  }

  async run([file]: string[], options: { app: string; from: ImportFormat; dryRun?: boolean }): Promise<void> {
    if (!isUuid(options.app) || !(await this.apps.find(options.app))) throw new CliError(`App ${options.app} not found`);
    if (!existsSync(file)) throw new CliError(`${file}: no such file`);
    const started = Date.now();
    const progress = (summary: ImportSummary) => {
      const seconds = (Date.now() - started) / 1000;
      process.stderr.write(
        `${summary.read} lines read (${Math.round(summary.read / seconds)}/s): ${summary.created} created, ${summary.updated} updated, ${summary.skipped_count} skipped\n`,
      );
    };
    try {
      const summary = await this.importer.import(options.app, options.from, createReadStream(file), { dryRun: options.dryRun === true, onProgress: progress });
      if (!options.dryRun) {
        const details = { from: options.from, read: summary.read, created: summary.created, updated: summary.updated, skipped: summary.skipped_count };
        await this.audit.record(cliActor(), { action: 'installations.import', appId: options.app, target: basename(file), details });
      }
      printJson(summary);
    } catch (error) {
      if (error instanceof ImportRefused) throw new CliError(`${file}: ${error.message}`);
      throw error;
    }
  }

  @Option({ flags: '--app <id>', description: 'app id', required: true })
  parseApp(value: string): string {
    return value;
  }

  @Option({ flags: '--from <format>', description: `the file's format: ${IMPORT_FORMATS.join(', ')}`, required: true })
  parseFrom(value: string): ImportFormat {
    if (!(IMPORT_FORMATS as readonly string[]).includes(value)) throw new CliError(`--from must be one of ${IMPORT_FORMATS.join(', ')}`);
    return value as ImportFormat;
  }

  @Option({ flags: '--dry-run', description: 'check and count every line, write nothing' })
  parseDryRun(): boolean {
    return true;
  }
}

/** `pns export` (docs/api.md#export): our CSV on stdout. */
@Command({ name: 'export', description: "Write an app's live installations to stdout in our CSV (tokens only with --with-tokens)" })
export class ExportCommand extends CommandRunner {
  constructor(
    private readonly apps: AppsService,
    private readonly exporter: ExportService,
  ) {
    super();
  }

  async run(_params: string[], options: { app: string; withTokens?: boolean }): Promise<void> {
    if (!isUuid(options.app) || !(await this.apps.find(options.app))) throw new CliError(`App ${options.app} not found`);
    const count = await this.exporter.export(options.app, process.stdout, options.withTokens === true);
    process.stderr.write(`${count} installations exported${options.withTokens ? ', with their tokens' : ''}.\n`);
  }

  @Option({ flags: '--app <id>', description: 'app id', required: true })
  parseApp(value: string): string {
    return value;
  }

  @Option({ flags: '--with-tokens', description: 'include push tokens, Web Push subscriptions and start tokens (to move to another instance)' })
  parseWithTokens(): boolean {
    return true;
  }
}
