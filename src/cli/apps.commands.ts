import { Command, CommandRunner, Option } from 'nest-commander';
import { AppsService } from '../apps/apps.service';
import { CliError, printJson } from './cli-error';

@Command({ name: 'apps:create', description: 'Create an app (a tenant)' })
export class AppsCreateCommand extends CommandRunner {
  constructor(private readonly apps: AppsService) {
    super();
  }

  async run(_params: string[], options: { name: string }): Promise<void> {
    const name = options.name.trim();
    if (name.length === 0 || name.length > 255) throw new CliError('--name must be 1 to 255 characters');
    const app = await this.apps.create(name);
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

/**
 * Deletes an app with everything it owns: tokens (refused from the next request), credentials,
 * installations, notifications, their deliveries and events, idempotency keys. Irreversible.
 */
@Command({ name: 'apps:delete', description: 'Delete an app and all its tokens, credentials, installations and notifications' })
export class AppsDeleteCommand extends CommandRunner {
  constructor(private readonly apps: AppsService) {
    super();
  }

  async run(_params: string[], options: { id: string }): Promise<void> {
    const deleted = await this.apps.delete(options.id);
    if (!deleted) throw new CliError(`App ${options.id} not found`);
    printJson(deleted);
  }

  @Option({ flags: '--id <id>', description: 'app id', required: true })
  parseId(value: string): string {
    return value;
  }
}
