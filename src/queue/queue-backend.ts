import { BackendFactory, createPostgresBackend, PostgresConnection, PostgresPoolConfig, PostgresQueueBackend, QueueBaseOptions } from 'bullmq';
import type { EnvironmentVariables } from '../config/env';
import { redisConnectionOptions, RedisConnectionOptions } from '../config/redis-options';

/**
 * Where the queues live (QUEUE_BACKEND, docs/operations.md "Choosing a queue backend"): every
 * choice between Redis and PostgreSQL is made here. With `postgres` no Redis client is created:
 * BullMQ runs on its own PostgreSQL backend in the service's database, and the pace limiter and
 * the rate-limit storage keep their state in tables of their own (migration QueueLimits).
 */
export type QueueBackend = EnvironmentVariables['QUEUE_BACKEND'];

type BackendSettings = Pick<EnvironmentVariables, 'QUEUE_BACKEND' | 'DATABASE_URL' | 'REDIS_URL' | 'REDIS_CLUSTER_NODES' | 'QUEUE_PREFIX' | 'APP_MODE'>;

/** Picks the implementation of the configured backend; only the chosen one is built. */
export function byBackend<T>(config: Pick<EnvironmentVariables, 'QUEUE_BACKEND'>, choices: { redis: () => T; postgres: () => T }): T {
  return config.QUEUE_BACKEND === 'postgres' ? choices.postgres() : choices.redis();
}

/**
 * The PostgreSQL schema of the queues: QUEUE_PREFIX made an identifier (`pns` → `pns_queues`), so
 * the prefix still namespaces them as it does Redis keys. `-` becomes `_` and a `{hash tag}`'s
 * braces go: `a-b` and `a_b` share a schema.
 */
export function queueSchema(prefix: string): string {
  return `${prefix.replace(/[{}]/g, '').replace(/-/g, '_').toLowerCase()}_queues`.replace(/^([^a-z_])/, '_$1').slice(0, 63);
}

/**
 * A worker's own pool serves its jobs' fetching, finishing and lock statements (plus its LISTEN
 * connection); every producer of the process shares one pool (sharedPostgresBackend).
 */
const POOL_SIZE = { worker: 4, producer: 4 } as const;

/**
 * BullMQ's pg pool options: the service's database, the queue schema, created or brought up to
 * date by the first backend that connects (BullMQ's own migrations, under its advisory lock).
 */
export function postgresQueueConnection(config: BackendSettings, role: 'worker' | 'producer'): PostgresPoolConfig {
  return {
    connectionString: config.DATABASE_URL,
    schema: queueSchema(config.QUEUE_PREFIX),
    migrate: true,
    max: POOL_SIZE[role],
    idleTimeoutMillis: 10_000,
    // A cut database fails a statement within seconds (the worker retries it), rather than hang it.
    connectionTimeoutMillis: 5_000,
    // Idle pooled connections do not keep a process (or a test file) alive.
    allowExitOnIdle: true,
    application_name: `push-${config.APP_MODE}-queues`,
  };
}

/** Workers block and retry forever (BullMQ requires maxRetriesPerRequest: null). */
export const redisWorkerConnection = (config: Pick<BackendSettings, 'REDIS_URL' | 'REDIS_CLUSTER_NODES'>): RedisConnectionOptions => ({
  ...redisConnectionOptions(config),
  maxRetriesPerRequest: null,
});

/** Producers fail fast: a request must not wait for a reconnection. */
export const redisProducerConnection = (config: Pick<BackendSettings, 'REDIS_URL' | 'REDIS_CLUSTER_NODES'>): RedisConnectionOptions => ({
  ...redisConnectionOptions(config),
  enableOfflineQueue: false,
  maxRetriesPerRequest: 1,
  connectTimeout: 2_000,
});

/**
 * The `connection` of a BullMQ Queue or Worker on the configured backend. Typed as BullMQ's
 * default (Redis) options, which is what @nestjs/bullmq's option types take; the backend factory
 * (queueBackendFactory) is what reads a PostgreSQL one.
 */
export function queueConnection(config: BackendSettings, role: 'worker' | 'producer'): RedisConnectionOptions {
  return byBackend(config, {
    redis: () => (role === 'worker' ? redisWorkerConnection(config) : redisProducerConnection(config)),
    postgres: () => postgresQueueConnection(config, role) as RedisConnectionOptions,
  });
}

/** One PostgreSQL connection (pool) per process and connection options, held by the producers using it. */
interface Lease {
  connection: PostgresConnection;
  holders: number;
}

const leases = new Map<string, Lease>();

/** A producer's backend on the shared pool: closing it lets go of the pool, which ends with its last holder. */
class SharedPostgresQueueBackend extends PostgresQueueBackend {
  private released = false;

  constructor(
    private readonly key: string,
    private readonly lease: Lease,
    name: string,
    opts: QueueBaseOptions<PostgresPoolConfig>,
  ) {
    super(lease.connection, name, opts, false);
  }

  override async close(): Promise<void> {
    if (this.released) return;
    this.released = true;
    if (--this.lease.holders > 0) return;
    leases.delete(this.key);
    await this.lease.connection.close();
  }
}

/**
 * BullMQ's PostgreSQL backend with the connections of a process kept few (PostgreSQL's
 * max_connections is shared by every process): a worker (blocking) has its own pool and LISTEN
 * connection, as createPostgresBackend makes them; the Queues of the process (every
 * registerQueue, the inspector, health) share one pool per connection options.
 */
export const sharedPostgresBackend = ((
  name: string,
  opts: QueueBaseOptions<PostgresPoolConfig>,
  factoryOpts: { blocking?: boolean; withBlockingConnection?: boolean } = {},
) => {
  if (factoryOpts.blocking || factoryOpts.withBlockingConnection) return createPostgresBackend(name, opts, factoryOpts);
  const key = JSON.stringify(opts.connection);
  let lease = leases.get(key);
  if (!lease) {
    lease = { connection: new PostgresConnection(opts.connection), holders: 0 };
    // Without a listener an idle client's error would be thrown; each statement reports its own.
    lease.connection.on('error', () => undefined);
    leases.set(key, lease);
  }
  lease.holders++;
  return new SharedPostgresQueueBackend(key, lease, name, opts);
}) as unknown as BackendFactory;

/** The BullMQ backend factory of the configured backend; undefined is BullMQ's default, Redis. */
export function queueBackendFactory(config: Pick<EnvironmentVariables, 'QUEUE_BACKEND'>): BackendFactory | undefined {
  return byBackend<BackendFactory | undefined>(config, { redis: () => undefined, postgres: () => sharedPostgresBackend });
}
