import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { EnvironmentVariables } from '../config/env';

type StartConfig = Pick<EnvironmentVariables, 'APP_MODE' | 'HOST' | 'PORT' | 'DATABASE_URL' | 'REDIS_URL' | 'REDIS_CLUSTER_NODES' | 'QUEUE_PREFIX'> &
  Partial<Pick<EnvironmentVariables, 'QUEUE_BACKEND'>>;

/** The nearest package.json's version: the service's, from src/ or dist/src/. */
export function serviceVersion(from = __dirname): string {
  for (let dir = from; ; dir = dirname(dir)) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) return (JSON.parse(readFileSync(file, 'utf8')) as { version?: string }).version ?? 'unknown';
    if (dirname(dir) === dir) return 'unknown';
  }
}

function where(url: string): string {
  try {
    const { protocol, host, pathname } = new URL(url);
    return `${protocol}//${host}${pathname === '/' ? '' : pathname}`;
  } catch {
    return 'an unparsable URL';
  }
}

/**
 * `Started in api mode on port 3000; version 0.1.0, postgres://127.0.0.1:5432/push, redis://127.0.0.1:6379 (queue prefix pns)`;
 * with QUEUE_BACKEND=postgres, `queues in PostgreSQL` where Redis would be named.
 */
export function startedLine(config: StartConfig, version: string, queues?: string[]): string {
  const port = config.HOST === undefined ? `port ${config.PORT}` : `${config.HOST} port ${config.PORT}`;
  const redis =
    config.QUEUE_BACKEND === 'postgres'
      ? 'queues in PostgreSQL'
      : config.REDIS_CLUSTER_NODES === undefined
        ? where(config.REDIS_URL)
        : `${new URL(config.REDIS_URL).protocol.slice(0, -1)} cluster ${config.REDIS_CLUSTER_NODES.replace(/\s+/g, '')}`;
  const mode = `Started in ${config.APP_MODE} mode${config.APP_MODE === 'worker' ? '' : ` on ${port}`}${queues ? ` (queues: ${queues.join(', ')})` : ''}`;
  return `${mode}; version ${version}, ${where(config.DATABASE_URL)}, ${redis} (queue prefix ${config.QUEUE_PREFIX})`;
}
