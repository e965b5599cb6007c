import { InjectDataSource } from '@nestjs/typeorm';
import { Command, CommandRunner, Option } from 'nest-commander';
import { DataSource } from 'typeorm';
import { AppsService } from '../apps/apps.service';
import { TokensService } from '../auth/tokens.service';
import { EnvironmentVariables } from '../config/env';
import { CredentialsService } from '../credentials/credentials.service';
import { printJson } from './cli-error';
import { fetchSandboxInfo, SANDBOX_URL, sandboxCredentials } from './sandbox-credentials';

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
 * With `--sandbox [url]`, the app also gets the credentials of the running sandbox
 * (docs/testing.md); cli.ts has written its URLs and CA into .env.
 */
@Command({ name: 'setup', description: 'Migrate, then create a first app and an all-abilities token' })
export class SetupCommand extends CommandRunner {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly apps: AppsService,
    private readonly tokens: TokensService,
    private readonly credentials: CredentialsService,
    private readonly config: EnvironmentVariables,
  ) {
    super();
  }

  @Option({ flags: '--sandbox [url]', description: `deliver to a running \`pns sandbox\` (default ${SANDBOX_URL})` })
  parseSandbox(value: string | undefined): string {
    return value ?? SANDBOX_URL;
  }

  async run(_params: string[], options: { sandbox?: string | true } = {}): Promise<void> {
    await this.db.runMigrations({ transaction: 'each' });
    const app = (await this.apps.list())[0] ?? (await this.apps.create('My App'));
    let sandbox: { url: string; inbox: string } | undefined;
    if (options.sandbox !== undefined) {
      const info = await fetchSandboxInfo(options.sandbox === true ? SANDBOX_URL : options.sandbox);
      await this.credentials.update(app.id, sandboxCredentials(info));
      sandbox = { url: info.url, inbox: `${info.url}/inbox` };
    }
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
    printJson({
      app: { id: app.id, name: app.name },
      token: { id: token.id, token: token.token, abilities: token.abilities },
      curl,
      ...(sandbox && { sandbox }),
    });
  }
}
