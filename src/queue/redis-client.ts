import { Cluster, Redis } from 'ioredis';
import type { RedisConnectionOptions } from '../config/redis-options';

/** Every Redis client of the process: a Redis, or a Cluster from the seed nodes (config/redis-options.ts). */
export function createRedisClient(options: RedisConnectionOptions): Redis | Cluster {
  const { clusterNodes, url, ...single } = options;
  if (!clusterNodes) return typeof url === 'string' ? new Redis(url, single) : new Redis(single);
  const { host: _host, port: _port, db: _db, retryStrategy, enableOfflineQueue, lazyConnect, ...node } = single;
  return new Cluster(clusterNodes, {
    ...(retryStrategy ? { clusterRetryStrategy: retryStrategy } : {}),
    ...(enableOfflineQueue === undefined ? {} : { enableOfflineQueue }),
    ...(lazyConnect === undefined ? {} : { lazyConnect }),
    redisOptions: node,
  });
}
