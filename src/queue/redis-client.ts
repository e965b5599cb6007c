import { Cluster, Redis } from 'ioredis';
import type { RedisConnectionOptions } from '../config/redis-options';

/**
 * An ioredis client for the service's Redis (config/redis-options.ts): a Redis, or a Cluster
 * discovered from the seed nodes. Every Redis client of the process is made here: BullMQ's through
 * its client factory (queue.module.ts), the rate limiter's directly.
 */
export function createRedisClient(options: RedisConnectionOptions): Redis | Cluster {
  // `url` as BullMQ's own default factory takes it (a connection given as `{ url }`).
  const { clusterNodes, url, ...single } = options;
  if (!clusterNodes) return typeof url === 'string' ? new Redis(url, single) : new Redis(single);
  // What belongs to the cluster as a whole; the rest is given to each node's connection. A
  // cluster has only database 0, and the hosts come from the seed nodes and the cluster itself.
  const { host: _host, port: _port, db: _db, retryStrategy, enableOfflineQueue, lazyConnect, ...node } = single;
  return new Cluster(clusterNodes, {
    ...(retryStrategy ? { clusterRetryStrategy: retryStrategy } : {}),
    ...(enableOfflineQueue === undefined ? {} : { enableOfflineQueue }),
    ...(lazyConnect === undefined ? {} : { lazyConnect }),
    redisOptions: node,
  });
}
