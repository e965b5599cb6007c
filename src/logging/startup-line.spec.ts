import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { serviceVersion, startedLine } from './startup-line';

describe('startedLine', () => {
  const config = {
    APP_MODE: 'api' as const,
    HOST: undefined,
    PORT: 3000,
    DATABASE_URL: 'postgres://push:s3cret@db.internal:5432/push',
    REDIS_URL: 'redis://:hunter2@cache.internal:6379/2?family=6',
    REDIS_CLUSTER_NODES: undefined,
    QUEUE_PREFIX: 'pns',
  };

  it('names the mode, port, version and backends, never a password', () => {
    const line = startedLine(config, '1.2.3');
    expect(line).toBe('Started in api mode on port 3000; version 1.2.3, postgres://db.internal:5432/push, redis://cache.internal:6379/2 (queue prefix pns)');
    expect(line).not.toMatch(/s3cret|hunter2/);
  });

  it("names a worker's queues when WORKER_QUEUES narrows them, and a Redis Cluster's seed nodes", () => {
    const worker = { ...config, APP_MODE: 'worker' as const, REDIS_CLUSTER_NODES: 'a:7000, b:7001', QUEUE_PREFIX: '{pns}' };
    expect(startedLine(worker, '1.2.3', ['deliver-small'])).toBe(
      'Started in worker mode (queues: deliver-small); version 1.2.3, postgres://db.internal:5432/push, redis cluster a:7000,b:7001 (queue prefix {pns})',
    );
  });

  it('names PostgreSQL as the queue store, and no Redis, with QUEUE_BACKEND=postgres', () => {
    expect(startedLine({ ...config, QUEUE_BACKEND: 'postgres' }, '1.2.3')).toBe(
      'Started in api mode on port 3000; version 1.2.3, postgres://db.internal:5432/push, queues in PostgreSQL (queue prefix pns)',
    );
  });

  it("reads the service's version from the nearest package.json", () => {
    expect(serviceVersion()).toBe((JSON.parse(readFileSync(join(__dirname, '../../package.json'), 'utf8')) as { version: string }).version);
  });
});
