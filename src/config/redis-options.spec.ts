import { clusterNodesFromSetting, redisConnectionOptions } from './redis-options';

describe('redisConnectionOptions', () => {
  it('is the single node of REDIS_URL without REDIS_CLUSTER_NODES', () => {
    expect(redisConnectionOptions({ REDIS_URL: 'redis://:secret@cache.internal:6380/3' })).toEqual({
      host: 'cache.internal',
      port: 6380,
      username: undefined,
      password: 'secret',
      db: 3,
      tls: undefined,
    });
  });

  it("adds the seed nodes, keeping REDIS_URL's credentials and TLS for every node", () => {
    const options = redisConnectionOptions({
      REDIS_URL: 'rediss://push:s%40cret@ignored:6379',
      REDIS_CLUSTER_NODES: 'a.internal:7000, 10.0.0.2:7001,[fd00::3]:7002',
    });
    expect(options).toMatchObject({ username: 'push', password: 's@cret', tls: {} });
    expect(options.clusterNodes).toEqual([
      { host: 'a.internal', port: 7000 },
      { host: '10.0.0.2', port: 7001 },
      { host: 'fd00::3', port: 7002 },
    ]);
  });

  it('reads one seed node', () => {
    expect(clusterNodesFromSetting('127.0.0.1:7000')).toEqual([{ host: '127.0.0.1', port: 7000 }]);
  });
});
