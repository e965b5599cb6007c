import 'reflect-metadata';
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { CommandFactory } from 'nest-commander';
import { Client } from 'pg';
import { CliError } from './cli/cli-error';
import { CliModule } from './cli/cli.module';
import { StderrLogger } from './cli/stderr.logger';
import { ConfigError, env, loadDotEnv } from './config/env';

/** Operator CLI (docs/api.md section 8): JSON on stdout, logs and errors on stderr, exit 1 on failure. */
function fail(message: string): never {
  process.stderr.write(`${message.split('\n')[0]}\n`);
  process.exit(1);
}

/** `setup` on a fresh checkout: generate the APP_KEY the service needs into .env. */
function ensureAppKey(): void {
  loadDotEnv();
  if (process.env.APP_KEY) return;
  const file = '.env';
  const current = existsSync(file) ? readFileSync(file, 'utf8') : '';
  const key = randomBytes(32).toString('base64');
  appendFileSync(file, `${current && !current.endsWith('\n') ? '\n' : ''}APP_KEY=${key}\n`);
  process.env.APP_KEY = key;
  process.stderr.write('Generated APP_KEY into .env (it encrypts provider secrets: keep it, and back it up).\n');
}

/**
 * `setup` on a fresh PostgreSQL: create the database DATABASE_URL names, through the server's
 * `postgres` maintenance database, so the first run needs nothing but a running server.
 */
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

async function main(): Promise<void> {
  const setup = process.argv[2] === 'setup';
  if (setup) ensureAppKey();
  let config;
  try {
    config = env();
  } catch (error) {
    if (error instanceof ConfigError) fail(error.message);
    throw error;
  }
  if (setup) await ensureDatabase(config.DATABASE_URL);
  await CommandFactory.run(CliModule, {
    logger: new StderrLogger(),
    // Errors while modules start (e.g. no database) reach main()'s catch instead of aborting the process.
    abortOnError: false,
    cliName: 'npm run cli --',
    errorHandler: handle,
    serviceErrorHandler: handle,
  });
}

/** Ends the process for a failed command with one line on stderr. */
function handle(error: Error): never {
  // Commander has already printed its own one-line error (unknown command, missing option) or the help.
  if (isCommanderError(error)) process.exit(error.exitCode);
  fail(error instanceof CliError ? error.message : `Error: ${error.message}`);
}

function isCommanderError(error: unknown): error is Error & { code: string; exitCode: number } {
  const { code, exitCode } = error as { code?: unknown; exitCode?: unknown };
  return typeof code === 'string' && code.startsWith('commander.') && typeof exitCode === 'number';
}

main().catch(handle);
