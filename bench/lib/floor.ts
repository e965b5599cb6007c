import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { TEST_CA_PATH } from '../../test/fakes';
import { freePort } from '../../test/support/processes';
import { FLOOR_TABLE_SQL } from './floor-pipeline';
import { APNS_TOPIC, type Stack } from './stack';

/** The floor of a single-device send (bench/lib/floor-pipeline.ts), running beside a stack. */
export interface Floor {
  /** POST `{ token, title, body }` here: stored with a durable commit, queued, sent by the floor's worker. */
  url: string;
  /** The same without waiting for the WAL flush. */
  urlNoFlush: string;
  stop(): Promise<void>;
}

/** Starts one of the floor's processes and waits for its ready line. */
async function start(env: Record<string, string>): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['-r', 'ts-node/register/transpile-only', join(__dirname, 'floor-pipeline.ts')], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`floor ${env.FLOOR_MODE} exited with ${code}`)));
    child.stdout.on('data', (chunk: Buffer) => {
      if (/listening|waiting/.test(chunk.toString())) resolve();
    });
  });
  child.removeAllListeners('exit');
  return child;
}

/** The floor's api and worker on the stack's database and Redis, its worker sending to `apnsUrl` with the stack's APNs key. */
export async function startFloor(stack: Stack, apnsUrl: string): Promise<Floor> {
  await stack.db.query(FLOOR_TABLE_SQL);
  const port = await freePort();
  const common = { DATABASE_URL: stack.databaseUrl, REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', FLOOR_QUEUE: `${stack.queuePrefix}:floor` };
  const children = [
    await start({ ...common, FLOOR_MODE: 'api', PORT: String(port) }),
    await start({
      ...common,
      FLOOR_MODE: 'worker',
      APNS_URL: apnsUrl,
      APNS_CA: TEST_CA_PATH,
      APNS_TOPIC,
      APNS_KEY: JSON.stringify({ keyId: stack.apnsKey.keyId, teamId: stack.apnsKey.teamId, privateKeyPem: stack.apnsKey.privateKeyPem }),
    }),
  ];
  return {
    url: `http://127.0.0.1:${port}/send`,
    urlNoFlush: `http://127.0.0.1:${port}/send?flush=0`,
    async stop() {
      for (const child of children) {
        child.kill('SIGTERM');
        if (child.exitCode === null && child.signalCode === null) await once(child, 'exit');
      }
    },
  };
}
