import { homedir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { stopWhenNpmLeaves } from '../common/stop-with-npm';
import { Sandbox, SANDBOX_DEFAULT_PORT } from './sandbox';

export function defaultSandboxDir(): string {
  return process.env.PNS_SANDBOX_DIR || join(homedir(), '.pns-sandbox');
}

/** `pns sandbox` (docs/testing.md): prints SandboxInfo as JSON and serves until SIGINT or SIGTERM (or npm that ran it leaves); needs no database, Redis or APP_KEY. */
export async function runSandboxCommand(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      port: { type: 'string' },
      host: { type: 'string' },
      'url-host': { type: 'string' },
      dir: { type: 'string' },
      'apns-topic': { type: 'string', multiple: true },
      'inbox-limit': { type: 'string' },
    },
    strict: true,
  });
  const port = integer('--port', values.port ?? String(SANDBOX_DEFAULT_PORT), 0, 65_532);
  const inboxLimit = integer('--inbox-limit', values['inbox-limit'] ?? '10000', 1, 1_000_000);
  const sandbox = await Sandbox.start({
    dir: values.dir ?? defaultSandboxDir(),
    port,
    host: values.host,
    urlHost: values['url-host'],
    apnsTopics: values['apns-topic']?.flatMap((topic) => topic.split(',')).filter((topic) => topic !== ''),
    inboxLimit,
  });
  process.stdout.write(`${JSON.stringify(sandbox.info)}\n`);
  process.stderr.write(`Sandbox serving on ${sandbox.info.url} (inbox: ${sandbox.info.url}/inbox). Ctrl-C stops it.\n`);
  const stop = () => {
    sandbox.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  stopWhenNpmLeaves(stop);
}

function integer(flag: string, text: string, min: number, max: number): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < min || value > max) throw new Error(`${flag} must be an integer from ${min} to ${max}`);
  return value;
}
