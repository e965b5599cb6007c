import { Command, CommandRunner, Option } from 'nest-commander';
import { parseFrequencyCap, parseInboxDays, parseOnOff, parseQuietHours } from '../apps/app-settings';
import { AppsService } from '../apps/apps.service';
import { AuditLog, cliActor } from '../audit/audit-log.service';
import { CliError, printJson } from './cli-error';

@Command({ name: 'apps:create', description: 'Create an app (a tenant)' })
export class AppsCreateCommand extends CommandRunner {
  constructor(
    private readonly apps: AppsService,
    private readonly audit: AuditLog,
  ) {
    super();
  }

  async run(_params: string[], options: { name: string }): Promise<void> {
    const name = options.name.trim();
    if (name.length === 0 || name.length > 255) throw new CliError('--name must be 1 to 255 characters');
    const app = await this.apps.create(name);
    await this.audit.record(cliActor(), { action: 'app.create', appId: app.id, target: app.name });
    printJson({ id: app.id, name: app.name });
  }

  @Option({ flags: '--name <name>', description: 'display name', required: true })
  parseName(value: string): string {
    return value;
  }
}

@Command({ name: 'apps:list', description: 'List apps' })
export class AppsListCommand extends CommandRunner {
  constructor(private readonly apps: AppsService) {
    super();
  }

  async run(): Promise<void> {
    printJson(await this.apps.list());
  }
}

@Command({ name: 'apps:delete', description: 'Delete an app and all its tokens, credentials, installations and notifications' })
export class AppsDeleteCommand extends CommandRunner {
  constructor(
    private readonly apps: AppsService,
    private readonly audit: AuditLog,
  ) {
    super();
  }

  async run(_params: string[], options: { id: string }): Promise<void> {
    const deleted = await this.apps.delete(options.id);
    if (!deleted) throw new CliError(`App ${options.id} not found`);
    await this.audit.record(cliActor(), { action: 'app.delete', appId: options.id, target: options.id, details: { ...deleted } });
    printJson(deleted);
  }

  @Option({ flags: '--id <id>', description: 'app id', required: true })
  parseId(value: string): string {
    return value;
  }
}

function option<T>(parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    throw new CliError((error as Error).message);
  }
}

/** Changes the given settings and prints them all (docs/api.md "App settings"); without options, only prints. */
@Command({ name: 'apps:settings', description: "Show or change an app's settings (frequency cap, quiet hours, identity verification, inbox days)" })
export class AppsSettingsCommand extends CommandRunner {
  constructor(
    private readonly apps: AppsService,
    private readonly audit: AuditLog,
  ) {
    super();
  }

  async run(
    _params: string[],
    options: { app: string; frequencyCap?: string; quietHours?: string; identityVerification?: string; inboxDays?: string },
  ): Promise<void> {
    const change = {
      ...(options.frequencyCap !== undefined ? { frequency_cap: option(() => parseFrequencyCap(options.frequencyCap!)) } : {}),
      ...(options.quietHours !== undefined ? { quiet_hours: option(() => parseQuietHours(options.quietHours!)) } : {}),
      ...(options.identityVerification !== undefined
        ? { identity_verification: option(() => parseOnOff('--identity-verification', options.identityVerification!)) }
        : {}),
      ...(options.inboxDays !== undefined ? { inbox_days: option(() => parseInboxDays(options.inboxDays!)) } : {}),
    };
    const app = Object.keys(change).length > 0 ? await this.apps.updateSettings(options.app, change) : await this.apps.settings(options.app);
    if (!app) throw new CliError(`App ${options.app} not found`);
    if (Object.keys(change).length > 0) await this.audit.record(cliActor(), { action: 'app.settings', appId: options.app, details: change });
    printJson(app);
  }

  @Option({ flags: '--app <id>', description: 'app id', required: true })
  parseApp(value: string): string {
    return value;
  }

  @Option({ flags: '--frequency-cap <cap>', description: 'N/HOURS (N 1-100, HOURS 1-720) or off: stored, applied to marketing sends later' })
  parseFrequencyCap(value: string): string {
    return value;
  }

  @Option({ flags: '--quiet-hours <window>', description: 'HH:MM-HH:MM or off: stored, applied to marketing sends later' })
  parseQuietHours(value: string): string {
    return value;
  }

  @Option({ flags: '--identity-verification <state>', description: 'on or off: setting user_id then needs user_id_hash (or installations:identify)' })
  parseIdentityVerification(value: string): string {
    return value;
  }

  @Option({ flags: '--inbox-days <days>', description: '1-365: how long inbox messages stored from now on are kept' })
  parseInboxDays(value: string): string {
    return value;
  }
}

@Command({ name: 'apps:identity-secret', description: "Print, rotate or revoke an app's identity verification secret" })
export class AppsIdentitySecretCommand extends CommandRunner {
  constructor(
    private readonly apps: AppsService,
    private readonly audit: AuditLog,
  ) {
    super();
  }

  async run(_params: string[], options: { app: string; rotate?: boolean; revokePrevious?: boolean }): Promise<void> {
    const result = await this.apps.identitySecret(options.app, { rotate: options.rotate, revokePrevious: options.revokePrevious });
    if (!result) throw new CliError(`App ${options.app} not found`);
    if (options.rotate || options.revokePrevious) {
      const details = { rotate: options.rotate === true, revoke_previous: options.revokePrevious === true };
      await this.audit.record(cliActor(), { action: 'app.identity_secret', appId: options.app, details });
    }
    printJson(result);
  }

  @Option({ flags: '--app <id>', description: 'app id', required: true })
  parseApp(value: string): string {
    return value;
  }

  @Option({ flags: '--rotate', description: 'make a new secret; the current one stays valid until --revoke-previous' })
  parseRotate(): boolean {
    return true;
  }

  @Option({ flags: '--revoke-previous', description: 'stop accepting the secret before the last rotation' })
  parseRevokePrevious(): boolean {
    return true;
  }
}
