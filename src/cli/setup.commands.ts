import { chmodSync, existsSync, readFileSync, statSync } from 'node:fs';
import { connect } from 'node:net';
import { parseEnv } from 'node:util';
import { InjectDataSource } from '@nestjs/typeorm';
import { Command, CommandRunner, Option } from 'nest-commander';
import { DataSource } from 'typeorm';
import { AppsService } from '../apps/apps.service';
import { ALL_ABILITIES } from '../auth/abilities';
import { TokenSummary, TokensService } from '../auth/tokens.service';
import { EnvironmentVariables } from '../config/env';
import { CredentialsService, CredentialsSummary } from '../credentials/credentials.service';
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

/** The addresses `setup` asks when nothing names a PostgreSQL or a Redis; the variables exist for tests. */
export const defaultAddresses = (environment = process.env) => ({
  postgres: environment.PNS_SETUP_POSTGRES_ADDRESS || '127.0.0.1:5432',
  redis: environment.PNS_SETUP_REDIS_ADDRESS || '127.0.0.1:6379',
});

/** True when something accepts a TCP connection at `host:port` within `timeoutMs`. */
export function answers(address: string, timeoutMs = 1_000): Promise<boolean> {
  const at = address.lastIndexOf(':');
  return new Promise((done) => {
    const socket = connect({ host: address.slice(0, at).replace(/^\[|\]$/g, ''), port: Number(address.slice(at + 1)), timeout: timeoutMs });
    const end = (answered: boolean) => {
      socket.destroy();
      done(answered);
    };
    socket.once('connect', () => end(true));
    socket.once('timeout', () => end(false));
    socket.once('error', () => end(false));
  });
}

/**
 * The first run (docs/operations.md "Embedded PostgreSQL"): where neither the environment nor .env
 * names a PostgreSQL or a Redis and nothing answers at the default address, the setting that needs
 * none, one line each. Sets them in `environment`, so setup records them in .env.
 */
export async function chooseFirstRunBackends(
  environment = process.env,
  say: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
): Promise<void> {
  const { postgres, redis } = defaultAddresses(environment);
  const [noPostgres, noRedis] = await Promise.all([
    environment.DATABASE_URL ? false : answers(postgres).then((answered) => !answered),
    environment.REDIS_URL || environment.REDIS_CLUSTER_NODES || environment.QUEUE_BACKEND ? false : answers(redis).then((answered) => !answered),
  ]);
  if (noPostgres) {
    environment.DATABASE_URL = 'embedded';
    say(`No PostgreSQL answers at ${postgres}: recording DATABASE_URL=embedded, a PostgreSQL of this service's own in ${environment.PNS_DATA_DIR || '.pns'}/.`);
  }
  if (noRedis) {
    environment.QUEUE_BACKEND = 'postgres';
    say(`No Redis answers at ${redis}: recording QUEUE_BACKEND=postgres, the queues, rate limits and pacing in PostgreSQL (no Redis needed).`);
  }
}

/** .env holds APP_KEY: readable by its owner only. */
export function tightenDotEnv(file = '.env', say: (line: string) => void = (line) => process.stderr.write(`${line}\n`)): void {
  if (!existsSync(file)) return;
  const mode = statSync(file).mode & 0o777;
  if ((mode & 0o077) === 0) return;
  chmodSync(file, mode & 0o700);
  say(`${file} was readable by others (mode ${mode.toString(8)}); it holds APP_KEY, so its mode is now ${(mode & 0o700).toString(8)}.`);
}

/** .env's PORT wins over the environment setup ran in (docs/api.md#cli). */
export function startPort(environmentPort: number, file = '.env'): number {
  const fromFile = existsSync(file) ? parseEnv(readFileSync(file, 'utf8')).PORT : undefined;
  return fromFile && /^\d+$/.test(fromFile) ? Number(fromFile) : environmentPort;
}

const keptToken = (tokens: TokenSummary[], now: number) =>
  tokens.find(
    (token) =>
      token.name === SETUP_TOKEN_NAME &&
      token.abilities.includes(ALL_ABILITIES) &&
      token.revoked_at === null &&
      (token.expires_at === null || Date.parse(token.expires_at) > now),
  );

const SETUP_TOKEN_NAME = 'setup';

/** What `setup --sandbox` stored for the app, a line per provider, and the VAPID public key the web SDK needs. */
export function storedLines(appName: string, stored: CredentialsSummary): string {
  const { apns, fcm, web_push: webPush, hms } = stored;
  return [
    `Stored the sandbox's credentials for "${appName}":`,
    `  APNs: key ${apns?.key_id}, team ${apns?.team_id}, topic ${apns?.topic}, ${apns?.production ? 'production' : 'development'}`,
    `  FCM: ${fcm?.client_email} (project ${fcm?.project_id})`,
    `  Web Push: subject ${webPush?.subject}`,
    ...(hms ? [`  Huawei: client ${hms.client_id} (app ${hms.app_id})`] : []),
    `VAPID public key (the web SDK's vapidPublicKey): ${webPush?.public_key}`,
    '',
  ].join('\n');
}

/** Migrations, an app, an all-abilities token (kept on later runs unless `--new-token`) and curls; cli.ts has written .env. */
@Command({ name: 'setup', description: 'Migrate, then create a first app and an all-abilities token (kept on later runs unless --new-token)' })
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

  async run(_params: string[], options: { newToken?: boolean; sandbox?: string | true; print?: boolean } = {}): Promise<void> {
    await this.db.runMigrations({ transaction: 'each' });
    const app = (await this.apps.list())[0] ?? (await this.apps.create('My App'));
    let sandbox: { url: string; inbox: string } | undefined;
    if (options.sandbox !== undefined) {
      const info = await fetchSandboxInfo(options.sandbox === true ? SANDBOX_URL : options.sandbox);
      process.stderr.write(storedLines(app.name, await this.credentials.update(app.id, sandboxCredentials(info))));
      sandbox = { url: info.url, inbox: `${info.url}/inbox` };
    }
    const kept = options.newToken ? undefined : keptToken(await this.tokens.list(app.id), Date.now());
    const token = kept ? { ...kept, token: null } : await this.tokens.create({ appId: app.id, abilities: [ALL_ABILITIES], name: SETUP_TOKEN_NAME });
    const bearer = token.token ?? '<the token setup printed before>';
    const base = `http://localhost:${startPort(this.config.PORT)}/api/v1`;
    const headers = `-H 'Authorization: Bearer ${bearer}' -H 'Content-Type: application/json'`;
    const curl = {
      register: `curl -i -X PUT ${base}/installations/my-first-device ${headers} -d '{"platform":"android","push_token":"my-first-device-token","user_id":"user-1"}'`,
      dry_run: `curl -i -X POST ${base}/notifications ${headers} -d '{"recipients":{"user_ids":["user-1"]},"notification":{"title":"Hello","body":"From my push service"},"options":{"dry_run":true}}'`,
      send: `curl -i -X POST ${base}/notifications ${headers} -d '{"recipients":{"user_ids":["user-1"]},"notification":{"title":"Hello","body":"From my push service"}}'`,
    };
    const tokenLine = kept
      ? `Kept its all-abilities token "${kept.name}" (id ${kept.id}, created ${kept.created_at}): its secret was shown once, by the setup that made it. For a new one: npm run setup -- --new-token.`
      : `Its new all-abilities token is the "token" at the end of the JSON below, shown only now: keep it.`;
    process.stderr.write(
      `\nApp "${app.name}" (${app.id}) is ready. ${tokenLine}\n` +
        `${options.print ? 'With the service running,' : 'Start the service with `npm start`, then'} run the "curl" commands below: register an installation, send a dry run, send.\n\n`,
    );
    // The token last, right above what `npm start` prints next.
    printJson({
      app: { id: app.id, name: app.name },
      curl,
      ...(sandbox && { sandbox }),
      token: { id: token.id, name: token.name, abilities: token.abilities, kept: kept !== undefined, token: token.token },
    });
  }

  @Option({ flags: '--print', description: 'write no .env (in a container: `docker compose run --rm api pns setup --print`); settings from the environment' })
  parsePrint(): boolean {
    return true;
  }

  @Option({ flags: '--new-token', description: 'mint a new all-abilities token even if setup made one before' })
  parseNewToken(): boolean {
    return true;
  }
}
