import type { RedisOptions } from 'bullmq';

/** One Redis Cluster seed node. */
export interface ClusterNode {
  host: string;
  port: number;
}

/** ioredis options: REDIS_URL's node, or with REDIS_CLUSTER_NODES a cluster whose nodes take its credentials and TLS. */
export type RedisConnectionOptions = RedisOptions & { clusterNodes?: ClusterNode[] };

/** ioredis options from a redis:// or rediss:// URL (user, password, db number and TLS). */
export function redisOptionsFromUrl(url: string): RedisOptions {
  const parsed = new URL(url);
  const db = parsed.pathname.replace('/', '');
  return {
    host: parsed.hostname.replace(/^\[|\]$/g, ''),
    port: parsed.port ? Number(parsed.port) : 6379,
    username: parsed.username ? decodeURIComponent(parsed.username) : undefined,
    password: parsed.password ? decodeURIComponent(parsed.password) : undefined,
    db: db ? Number(db) : 0,
    tls: parsed.protocol === 'rediss:' ? {} : undefined,
  };
}

/** The seed nodes of REDIS_CLUSTER_NODES (`host:port,host:port`, already validated). */
export function clusterNodesFromSetting(setting: string): ClusterNode[] {
  return setting.split(',').map((entry) => {
    const at = entry.trim().lastIndexOf(':');
    return {
      host: entry
        .trim()
        .slice(0, at)
        .replace(/^\[|\]$/g, ''),
      port: Number(entry.trim().slice(at + 1)),
    };
  });
}

/** REDIS_URL's options, plus the cluster's seed nodes when REDIS_CLUSTER_NODES is set. */
export function redisConnectionOptions(config: { REDIS_URL: string; REDIS_CLUSTER_NODES?: string }): RedisConnectionOptions {
  const options = redisOptionsFromUrl(config.REDIS_URL);
  return config.REDIS_CLUSTER_NODES === undefined ? options : { ...options, clusterNodes: clusterNodesFromSetting(config.REDIS_CLUSTER_NODES) };
}
