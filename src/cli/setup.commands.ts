import { InjectDataSource } from '@nestjs/typeorm';
import { Command, CommandRunner } from 'nest-commander';
import { DataSource } from 'typeorm';
import { AppsService } from '../apps/apps.service';
import { TokensService } from '../auth/tokens.service';
import { EnvironmentVariables } from '../config/env';
import { printJson } from './cli-error';

@Command({ name: 'migrate', description: 'Run pending database migrations' })
export class MigrateCommand extends CommandRunner {
  constructor(@InjectDataSource() private readonly db: DataSource) {
    super();
  }

  async run(): Promise<void> {
    const applied = await this.db.runMigrations({ transaction: 'each' });
    printJson({ applied: applied.map((migration) => migration.name) });
  }
}

/**
 * First run on a new machine: migrations, an app and an all-abilities token, and a curl to try.
 * (APP_KEY is written to .env by cli.ts before anything starts, since the config needs it.)
 */
@Command({ name: 'setup', description: 'Migrate, then create a first app and an all-abilities token' })
export class SetupCommand extends CommandRunner {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly apps: AppsService,
    private readonly tokens: TokensService,
    private readonly config: EnvironmentVariables,
  ) {
    super();
  }

  async run(): Promise<void> {
    await this.db.runMigrations({ transaction: 'each' });
    const app = (await this.apps.list())[0] ?? (await this.apps.create('My App'));
    const token = await this.tokens.create({ appId: app.id, abilities: ['*'], name: 'setup' });
    const curl = [
      `curl -i -X POST http://localhost:${this.config.PORT}/api/v1/notifications`,
      `-H 'Authorization: Bearer ${token.token}'`,
      `-H 'Content-Type: application/json'`,
      `-d '{"recipients":{"user_ids":["user-1"]},"notification":{"title":"Hello","body":"From my push service"}}'`,
    ].join(' '); // one line: it is copied out of the JSON
    // The token is printed once, in the JSON on stdout (as `token.token` and inside `curl`).
    process.stderr.write(
      `\nApp "${app.name}" (${app.id}) is ready. Its token is "token" in the JSON below, shown only now: keep it.\n` +
        `Start the service with \`npm start\`, then run the "curl" below.\n\n`,
    );
    printJson({ app: { id: app.id, name: app.name }, token: { id: token.id, token: token.token, abilities: token.abilities }, curl });
  }
}
