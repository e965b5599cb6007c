import { Command, CommandRunner, Option } from 'nest-commander';
import { AppsService } from '../apps/apps.service';
import { ABILITIES, ALL_ABILITIES, isKnownAbility } from '../auth/abilities';
import { TokensService } from '../auth/tokens.service';
import { isUuid } from '../common/uuid';
import { AuditLog, cliActor } from '../audit/audit-log.service';
import { CliError, printJson } from './cli-error';

@Command({ name: 'tokens:create', description: 'Create an API token; it is shown only this once' })
export class TokensCreateCommand extends CommandRunner {
  constructor(
    private readonly apps: AppsService,
    private readonly tokens: TokensService,
    private readonly audit: AuditLog,
  ) {
    super();
  }

  async run(_params: string[], options: { app: string; abilities: string[]; name?: string; expiresInDays?: number }): Promise<void> {
    if (!(await this.apps.find(options.app))) throw new CliError(`App ${options.app} not found`);
    const token = await this.tokens.create({
      appId: options.app,
      abilities: options.abilities,
      name: options.name,
      expiresInDays: options.expiresInDays,
    });
    const details = { token_id: token.id, abilities: token.abilities, expires_at: token.expires_at };
    await this.audit.record(cliActor(), { action: 'token.create', appId: options.app, target: token.name ?? token.id, details });
    printJson({ id: token.id, token: token.token, abilities: token.abilities, name: token.name, expires_at: token.expires_at });
  }

  @Option({ flags: '--app <id>', description: 'app id', required: true })
  parseApp(value: string): string {
    return value;
  }

  @Option({
    flags: '--abilities <list>',
    description: `comma-separated: ${ABILITIES.join(', ')}, or ${ALL_ABILITIES} for all`,
    required: true,
  })
  parseAbilities(value: string): string[] {
    const abilities = [
      ...new Set(
        value
          .split(',')
          .map((a) => a.trim())
          .filter(Boolean),
      ),
    ];
    const unknown = abilities.find((a) => !isKnownAbility(a));
    if (abilities.length === 0) throw new CliError('--abilities needs at least one ability');
    if (unknown !== undefined) throw new CliError(`Unknown ability "${unknown}": the abilities are ${ABILITIES.join(', ')}, or ${ALL_ABILITIES} for all`);
    return abilities;
  }

  @Option({ flags: '--name <name>', description: 'label shown by tokens:list' })
  parseName(value: string): string {
    if (value.length > 255) throw new CliError('--name must be at most 255 characters');
    return value;
  }

  @Option({ flags: '--expires-in-days <days>', description: 'expiry, in whole days from now' })
  parseExpiresInDays(value: string): number {
    const days = Number(value);
    if (!/^\d+$/.test(value) || days < 1 || days > 36500) throw new CliError('--expires-in-days must be a whole number from 1 to 36500');
    return days;
  }
}

@Command({ name: 'tokens:list', description: "List an app's tokens (never the secret)" })
export class TokensListCommand extends CommandRunner {
  constructor(
    private readonly apps: AppsService,
    private readonly tokens: TokensService,
  ) {
    super();
  }

  async run(_params: string[], options: { app: string }): Promise<void> {
    if (!(await this.apps.find(options.app))) throw new CliError(`App ${options.app} not found`);
    printJson(await this.tokens.list(options.app));
  }

  @Option({ flags: '--app <id>', description: 'app id', required: true })
  parseApp(value: string): string {
    return value;
  }
}

@Command({ name: 'tokens:revoke', description: 'Revoke a token at once' })
export class TokensRevokeCommand extends CommandRunner {
  constructor(
    private readonly tokens: TokensService,
    private readonly audit: AuditLog,
  ) {
    super();
  }

  async run(_params: string[], options: { id: string }): Promise<void> {
    const token = isUuid(options.id) ? await this.tokens.revoke(options.id) : null;
    if (!token) throw new CliError(`Token ${options.id} not found`);
    await this.audit.record(cliActor(), { action: 'token.revoke', appId: token.app_id, target: token.name ?? token.id, details: { token_id: token.id } });
    printJson(token);
  }

  @Option({ flags: '--id <id>', description: 'token id', required: true })
  parseId(value: string): string {
    return value;
  }
}
