#!/usr/bin/env node
import 'reflect-metadata';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { CommandFactory } from 'nest-commander';
import { CommandMeta } from 'nest-commander/src/constants';
import { Client } from 'pg';
import { CliError } from './cli/cli-error';
import { CLI_COMMANDS, CliModule } from './cli/cli.module';
import { StderrLogger } from './cli/stderr.logger';
import { ConfigError, env, loadDotEnv, VARIABLES } from './config/env';
import { fetchSandboxInfo, SANDBOX_URL, sandboxEnvironment } from './cli/sandbox-credentials';
import { chooseFirstRunBackends, tightenDotEnv } from './cli/setup.commands';
import { resolveDatabaseUrl } from './database/embedded/resolve-database-url';
import { runSandboxCommand } from './sandbox/sandbox-command';

/** Operator CLI (docs/api.md#cli): JSON on stdout, logs and errors on stderr, exit 1 on failure. */
function fail(message: string): never {
  process.stderr.write(`${message.split('\n')[0]}\n`);
  process.exit(1);
}

/** What `setup` records in .env from its environment: every setting but the keys that open the secrets. */
const RECORDED = VARIABLES.filter((name) => name !== 'APP_KEY' && name !== 'APP_KEY_PREVIOUS');

// `setup`: fills empty `NAME=` and `# NAME=default` lines of .env, appends a generated APP_KEY when none is set and
// the settings given in the environment; never overwrites a value, never writes an APP_KEY from the environment.
function prepareDotEnv(file = '.env', extra = new Map<string, string>()): void {
  const given = new Map<string, string>(RECORDED.filter((name) => process.env[name]).map((name) => [name, process.env[name]!]));
  for (const [name, value] of extra) given.set(name, value);
  loadDotEnv();
  const fill = new Map<string, string>();
  if (!process.env.APP_KEY) {
    const key = randomBytes(32).toString('base64');
    fill.set('APP_KEY', key);
    process.env.APP_KEY = key;
  }
  for (const [name, value] of given) fill.set(name, value);
  if (fill.size === 0) return;

  const lines = existsSync(file) ? readFileSync(file, 'utf8').split('\n') : [];
  if (lines.at(-1) === '') lines.pop();
  let changed = false;
  for (const [name, value] of fill) {
    const at = lines.findIndex((line) => new RegExp(`^\\s*(export\\s+)?${name}\\s*=`).test(line));
    const example = lines.findIndex((line) => new RegExp(`^#\\s?${name}=`).test(line));
    if (at === -1 && example !== -1) {
      lines[example] = `${name}=${value}`; // the commented default of .env.example
      changed = true;
    } else if (at === -1) {
      lines.push(`${name}=${value}`);
      changed = true;
    } else if (/=\s*(#.*)?$/.test(lines[at])) {
      lines[at] = `${name}=${value}`; // an empty `NAME=` line, as in .env.example
      changed = true;
    } else {
      fill.delete(name);
      const current = lines[at]
        .slice(lines[at].indexOf('=') + 1)
        .trim()
        .replace(/^(["'])(.*)\1$/, '$2');
      if (current !== value) process.stderr.write(`${name} in ${file} differs from the environment's; ${file} is kept, so \`npm start\` will use its value.\n`);
    }
  }
  if (!changed) return;
  writeFileSync(file, `${lines.join('\n')}\n`, { mode: 0o600 });
  const names = [...fill.keys()].join(', ');
  process.stderr.write(`Wrote ${names} into ${file}${fill.has('APP_KEY') ? ' (APP_KEY encrypts provider secrets: keep it, and back it up)' : ''}.\n`);
}

/** `setup`: creates DATABASE_URL's database through the `postgres` maintenance database. */
async function ensureDatabase(url: string): Promise<void> {
  const name = decodeURIComponent(new URL(url).pathname.slice(1));
  if (!name) return;
  const maintenance = new URL(url);
  maintenance.pathname = '/postgres';
  const client = new Client({ connectionString: maintenance.toString() });
  try {
    await client.connect();
  } catch (error) {
    fail(`Cannot connect to the database: ${(error as Error).message}`);
  }
  try {
    const { rowCount } = await client.query(`SELECT 1 FROM pg_database WHERE datname = $1`, [name]);
    if (rowCount === 0) {
      await client.query(`CREATE DATABASE "${name.replace(/"/g, '""')}"`);
      process.stderr.write(`Created database ${name}.\n`);
    }
  } finally {
    await client.end();
  }
}

/** The commands that seal or open a secret, so need APP_KEY. */
const NEEDS_APP_KEY = new Set([
  'setup',
  'apps:credentials',
  'apps:credentials:remove',
  'credentials:check',
  'apps:identity-secret',
  'webhooks:create',
  'app-key:rotate',
]);

const commandNames = (): string[] => CLI_COMMANDS.map((command) => (Reflect.getMetadata(CommandMeta, command) as { name: string }).name);

async function main(): Promise<void> {
  // The sandbox (docs/testing.md) needs no configuration, database or Redis.
  if (process.argv[2] === 'sandbox' && !process.argv.includes('--help') && !process.argv.includes('-h')) return runSandboxCommand(process.argv.slice(3));
  const command = process.argv[2];
  // Help, and the refusal of an unknown command, need neither the database nor APP_KEY.
  const helpOnly = command === undefined || !commandNames().includes(command) || process.argv.includes('--help') || process.argv.includes('-h');
  const setup = command === 'setup' && !helpOnly;
  // setup --sandbox [url]: the sandbox's URLs and CA go into .env (docs/testing.md).
  const sandboxAt = process.argv.indexOf('--sandbox');
  const sandboxUrl = setup && sandboxAt > 0 ? (process.argv[sandboxAt + 1]?.startsWith('http') ? process.argv[sandboxAt + 1] : SANDBOX_URL) : undefined;
  // setup --print (a container's) writes nothing: the settings, APP_KEY too, come from the environment.
  if (setup) {
    loadDotEnv();
    if (!process.argv.includes('--print')) {
      await chooseFirstRunBackends();
      prepareDotEnv('.env', sandboxUrl === undefined ? undefined : sandboxEnvironment(await fetchSandboxInfo(sandboxUrl)));
      tightenDotEnv('.env');
    }
  }
  if (!helpOnly) {
    const embedded = await resolveDatabaseUrl().catch((error: Error) => fail(error.message));
    if (embedded)
      process.stderr.write(`${embedded}
`);
  }
  let config;
  try {
    config = env({ appKeyRequired: NEEDS_APP_KEY.has(command ?? '') && !helpOnly });
  } catch (error) {
    if (error instanceof ConfigError) fail(error.message);
    throw error;
  }
  if (setup) await ensureDatabase(config.DATABASE_URL);
  await CommandFactory.run(CliModule.forRun(!helpOnly), {
    logger: new StderrLogger(),
    // Errors while modules start (no database) reach main()'s catch.
    abortOnError: false,
    cliName: 'pns',
    errorHandler: handle,
    serviceErrorHandler: handle,
  });
}

function handle(error: Error): never {
  // Commander has already printed its error or the help.
  if (isCommanderError(error)) process.exit(error.exitCode);
  // 42P01: a table is missing, so the database was never migrated.
  if ((error as { code?: unknown }).code === '42P01') fail(`Error: ${error.message}: the database is not migrated; run \`npm run setup\` (or \`pns migrate\`)`);
  fail(error instanceof CliError ? error.message : `Error: ${error.message}`);
}

function isCommanderError(error: unknown): error is Error & { code: string; exitCode: number } {
  const { code, exitCode } = error as { code?: unknown; exitCode?: unknown };
  return typeof code === 'string' && code.startsWith('commander.') && typeof exitCode === 'number';
}

main().catch(handle);
