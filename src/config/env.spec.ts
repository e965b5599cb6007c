import { ConfigError, EnvironmentVariables, parseEnv } from './env';

const APP_KEY = 'dGVzdC1rZXktdGVzdC1rZXktdGVzdC1rZXktdGVzdC0=';

/** The one line an operator sees, or null when the environment is accepted. */
function problem(source: Record<string, string | undefined>): string | null {
  try {
    parseEnv(source);
    return null;
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
}

describe('parseEnv (docs/api.md#processes and docs/api.md#environment)', () => {
  it('applies the defaults of docs/api.md#environment exactly', () => {
    const env = parseEnv({ APP_KEY });
    expect(env).toBeInstanceOf(EnvironmentVariables);
    expect(env).toEqual(
      expect.objectContaining({
        APP_MODE: 'all',
        PORT: 3000,
        DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/push',
        REDIS_URL: 'redis://127.0.0.1:6379',
        APP_KEY,
        FCM_URL: 'https://fcm.googleapis.com',
        GOOGLE_TOKEN_URL: 'https://oauth2.googleapis.com/token',
        DELIVERY_MAX_ATTEMPTS: 5,
        DELIVERY_RETRY_BASE_MS: 1000,
        DELIVERY_RETRY_MAX_MS: 300000,
        WEBHOOK_MAX_ATTEMPTS: 8,
        WEBHOOK_CONCURRENCY: 32,
        LOG_LEVEL: 'info',
      }),
    );
    // Unset: the real APNs host is chosen per app (production or sandbox).
    expect(env.APNS_URL).toBeUndefined();
  });

  it('reads numbers as numbers and keeps the given values', () => {
    const env = parseEnv({
      APP_KEY,
      APP_MODE: 'worker',
      PORT: '8080',
      DATABASE_URL: 'postgresql://user:secret@db.internal:6543/push_prod?sslmode=require',
      REDIS_URL: 'rediss://:pw@cache.internal:6380/2',
      APNS_URL: 'https://127.0.0.1:8443',
      FCM_URL: 'http://127.0.0.1:9000',
      GOOGLE_TOKEN_URL: 'http://127.0.0.1:9000/token',
      DELIVERY_MAX_ATTEMPTS: '3',
      DELIVERY_RETRY_BASE_MS: '0',
      DELIVERY_RETRY_MAX_MS: '60000',
      LOG_LEVEL: 'debug',
    });
    expect(env).toEqual(
      expect.objectContaining({
        APP_MODE: 'worker',
        PORT: 8080,
        DATABASE_URL: 'postgresql://user:secret@db.internal:6543/push_prod?sslmode=require',
        REDIS_URL: 'rediss://:pw@cache.internal:6380/2',
        APNS_URL: 'https://127.0.0.1:8443',
        FCM_URL: 'http://127.0.0.1:9000',
        GOOGLE_TOKEN_URL: 'http://127.0.0.1:9000/token',
        DELIVERY_MAX_ATTEMPTS: 3,
        DELIVERY_RETRY_BASE_MS: 0,
        DELIVERY_RETRY_MAX_MS: 60000,
        LOG_LEVEL: 'debug',
      }),
    );
    for (const key of ['PORT', 'DELIVERY_MAX_ATTEMPTS', 'DELIVERY_RETRY_BASE_MS', 'DELIVERY_RETRY_MAX_MS'] as const) {
      expect(typeof env[key]).toBe('number');
    }
  });

  it('accepts APNS_URL when given', () => {
    expect(problem({ APP_KEY, APNS_URL: 'https://api.sandbox.push.apple.com' })).toBeNull();
  });

  it.each(['localhost', 'push.example.org,.push.example.net', 'fcm.googleapis.com, .push.apple.com', '127.0.0.1'])(
    'accepts WEB_PUSH_ALLOWED_HOSTS=%j',
    (hosts) => {
      expect(parseEnv({ APP_KEY, WEB_PUSH_ALLOWED_HOSTS: hosts }).WEB_PUSH_ALLOWED_HOSTS).toBe(hosts);
    },
  );

  it.each(['*', 'https://shop.example.com', 'https://shop.example.com, http://127.0.0.1:8080,http://[::1]:3000'])(
    'accepts CORS_ALLOWED_ORIGINS=%j',
    (origins) => {
      expect(parseEnv({ APP_KEY, CORS_ALLOWED_ORIGINS: origins }).CORS_ALLOWED_ORIGINS).toBe(origins);
    },
  );

  it.each([
    ['deliver-small', 'deliver-small'],
    ['fanout, deliver,maintenance,webhook,live-activity', 'fanout, deliver,maintenance,webhook,live-activity'],
  ])('accepts WORKER_QUEUES=%s', (value, parsed) => {
    expect(parseEnv({ APP_KEY, APP_MODE: 'worker', WORKER_QUEUES: value }).WORKER_QUEUES).toBe(parsed);
  });

  it.each(['api', 'worker', 'all'])('accepts APP_MODE=%s', (mode) => {
    expect(parseEnv({ APP_KEY, APP_MODE: mode }).APP_MODE).toBe(mode);
  });

  it('treats an empty value as unset (docker-compose `VAR=`)', () => {
    const env = parseEnv({ APP_KEY, APP_MODE: '', PORT: '', DATABASE_URL: '', DELIVERY_MAX_ATTEMPTS: '', APNS_URL: '' });
    expect(env).toEqual(expect.objectContaining({ APP_MODE: 'all', PORT: 3000, DELIVERY_MAX_ATTEMPTS: 5 }));
    expect(env.DATABASE_URL).toBe('postgres://postgres@127.0.0.1:5432/push');
    expect(env.APNS_URL).toBeUndefined();
  });

  it('reads only the source it is given, and does not change it', () => {
    const source = { APP_KEY, PORT: '4000', SOMETHING_ELSE: 'x' };
    const copy = { ...source };
    const before = process.env.PORT;
    process.env.PORT = '5000';
    try {
      expect(parseEnv(source).PORT).toBe(4000);
    } finally {
      if (before === undefined) delete process.env.PORT;
      else process.env.PORT = before;
    }
    expect(source).toEqual(copy);
  });

  describe('a bad or missing value: a ConfigError whose one-line message names the variable', () => {
    it('APP_KEY missing', () => {
      const message = parseEnvMessage({});
      expect(message).toContain('APP_KEY');
      expect(message).not.toContain('\n');
    });

    it('APP_KEY empty counts as missing', () => {
      expect(parseEnvMessage({ APP_KEY: '' })).toContain('APP_KEY');
    });

    it.each([
      ['APP_KEY', 'not-a-key'],
      ['APP_KEY', 'AAAAAAAAAAAAAAAAAAAAAA=='], // 16 bytes
      ['APP_KEY', `${APP_KEY}AAAA`], // 35 bytes
      ['APP_KEY', APP_KEY.slice(0, -1)], // no padding: not 32 bytes of base64
      ['APP_MODE', 'both'],
      ['APP_MODE', 'API'],
      ['PORT', 'abc'],
      ['PORT', '-1'],
      ['PORT', '65536'],
      ['PORT', '80.5'],
      ['PORT', '1e3'],
      ['DATABASE_URL', 'mysql://localhost/push'],
      ['DATABASE_URL', 'localhost:5432/push'],
      ['DATABASE_URL', 'postgres://'],
      ['REDIS_URL', 'http://127.0.0.1:6379'],
      ['REDIS_URL', '127.0.0.1:6379'],
      ['APNS_URL', 'api.push.apple.com'],
      ['FCM_URL', 'not a url'],
      ['GOOGLE_TOKEN_URL', '/token'],
      ['DELIVERY_MAX_ATTEMPTS', '0'],
      ['DELIVERY_MAX_ATTEMPTS', 'five'],
      ['DELIVERY_MAX_ATTEMPTS', '2.5'],
      ['DELIVERY_RETRY_BASE_MS', '-1'],
      ['DELIVERY_RETRY_BASE_MS', '1s'],
      ['DELIVERY_RETRY_MAX_MS', '-5'],
      ['DELIVERY_RETRY_MAX_MS', 'forever'],
      ['WEBHOOK_MAX_ATTEMPTS', '0'],
      ['WORKER_QUEUES', 'deliver,campaigns'],
      ['WORKER_QUEUES', 'deliver-small;fanout'],
      ['WEBHOOK_MAX_ATTEMPTS', '31'],
      ['WEBHOOK_MAX_ATTEMPTS', 'eight'],
      ['WEBHOOK_CONCURRENCY', '0'],
      ['WEBHOOK_CONCURRENCY', '1001'],
      ['LOG_LEVEL', 'loud'],
      ['WEB_PUSH_ALLOWED_HOSTS', 'https://fcm.googleapis.com'],
      ['WEB_PUSH_ALLOWED_HOSTS', '*'],
      ['WEB_PUSH_ALLOWED_HOSTS', 'a,,b'],
      ['WEB_PUSH_ALLOWED_HOSTS', 'push service'],
      ['WEB_PUSH_ALLOWED_HOSTS', '[::1]'],
      // An origin never has a path: a browser's Origin header could not match it.
      ['CORS_ALLOWED_ORIGINS', 'https://shop.example.com/'],
      ['CORS_ALLOWED_ORIGINS', 'shop.example.com'],
      ['CORS_ALLOWED_ORIGINS', 'https://a.example.com,*'],
    ])('%s=%j', (name, value) => {
      const message = parseEnvMessage({ APP_KEY, [name]: value });
      expect(message).toMatch(new RegExp(`\\b${name}\\b`));
      expect(message).not.toContain('\n');
    });

    it('names the variable even when others are fine', () => {
      const message = parseEnvMessage({ APP_KEY, APP_MODE: 'api', PORT: '8080', DELIVERY_MAX_ATTEMPTS: 'many' });
      expect(message).toContain('DELIVERY_MAX_ATTEMPTS');
      expect(message).not.toMatch(/\bPORT\b|APP_MODE/);
    });

    it('never echoes a secret value', () => {
      const message = parseEnvMessage({ APP_KEY: 'my-very-secret-but-malformed-key' });
      expect(message).not.toContain('my-very-secret-but-malformed-key');
      const db = parseEnvMessage({ APP_KEY, DATABASE_URL: 'mysql://root:hunter2@db/push' });
      expect(db).not.toContain('hunter2');
    });
  });
});

function parseEnvMessage(source: Record<string, string | undefined>): string {
  const message = problem(source);
  if (message === null) throw new Error(`expected ${JSON.stringify(source)} to be rejected`);
  return message;
}

describe('start-up and listener variables (issues 13 and 18)', () => {
  it('DATABASE_CONNECT_TIMEOUT_MS defaults to 60 s and must be a non-negative integer', () => {
    expect(parseEnv({ APP_KEY }).DATABASE_CONNECT_TIMEOUT_MS).toBe(60000);
    expect(parseEnv({ APP_KEY, DATABASE_CONNECT_TIMEOUT_MS: '5000' }).DATABASE_CONNECT_TIMEOUT_MS).toBe(5000);
    expect(problem({ APP_KEY, DATABASE_CONNECT_TIMEOUT_MS: '-1' })).toBe('Invalid environment variable DATABASE_CONNECT_TIMEOUT_MS must be at least 0');
    // Which of its messages comes first is the integer decorators' business (shared by every such variable).
    expect(problem({ APP_KEY, DATABASE_CONNECT_TIMEOUT_MS: '1m' })).toMatch(/^Invalid environment variable DATABASE_CONNECT_TIMEOUT_MS must be /);
  });

  it('METRICS_PORT defaults to 9464 in api and all mode, 9465 in worker mode, and a given value wins', () => {
    expect(parseEnv({ APP_KEY }).METRICS_PORT).toBe(9464);
    expect(parseEnv({ APP_KEY, APP_MODE: 'api' }).METRICS_PORT).toBe(9464);
    expect(parseEnv({ APP_KEY, APP_MODE: 'worker' }).METRICS_PORT).toBe(9465);
    expect(parseEnv({ APP_KEY, APP_MODE: 'worker', METRICS_PORT: '9464' }).METRICS_PORT).toBe(9464);
    expect(parseEnv({ APP_KEY, APP_MODE: 'worker', METRICS_PORT: '0' }).METRICS_PORT).toBe(0);
  });

  it.each(['HOST', 'METRICS_HOST'])('%s is unset by default and takes an IPv4 or IPv6 address only', (name) => {
    expect(parseEnv({ APP_KEY })[name as 'HOST']).toBeUndefined();
    expect(parseEnv({ APP_KEY, [name]: '127.0.0.1' })[name as 'HOST']).toBe('127.0.0.1');
    expect(parseEnv({ APP_KEY, [name]: '::1' })[name as 'HOST']).toBe('::1');
    for (const bad of ['localhost', '127.0.0.1:80', '300.1.1.1']) {
      expect(problem({ APP_KEY, [name]: bad })).toBe(`Invalid environment variable ${name} must be an IP address (0.0.0.0, ::, 127.0.0.1...)`);
    }
  });
});

describe('Redis Cluster settings (issue 18)', () => {
  it.each(['pns', '{pns}', 'pns-{prod}', '{a}b_c', 'x'.repeat(64)])('QUEUE_PREFIX=%s is accepted', (prefix) => {
    expect(parseEnv({ APP_KEY, QUEUE_PREFIX: prefix }).QUEUE_PREFIX).toBe(prefix);
  });

  it.each(['{pns', 'pns}', '{}', '{a}{b}', '{{a}}', 'a:b', 'p n s', `{${'x'.repeat(63)}}`])('QUEUE_PREFIX=%s is refused', (prefix) => {
    expect(problem({ APP_KEY, QUEUE_PREFIX: prefix })).toMatch(
      /^Invalid environment variable QUEUE_PREFIX must be 1 to 64 letters, digits, - or _, with at most one \{hash tag\}/,
    );
  });

  it('REDIS_CLUSTER_NODES is unset by default and takes host:port seed nodes', () => {
    expect(parseEnv({ APP_KEY }).REDIS_CLUSTER_NODES).toBeUndefined();
    const nodes = 'redis-a.internal:6379, 10.0.0.2:7000,[fd00::3]:7001';
    expect(parseEnv({ APP_KEY, REDIS_CLUSTER_NODES: nodes, QUEUE_PREFIX: '{pns}' }).REDIS_CLUSTER_NODES).toBe(nodes);
    for (const bad of ['redis-a', 'redis://a:6379', 'a:6379,', 'a:port']) {
      expect(problem({ APP_KEY, REDIS_CLUSTER_NODES: bad, QUEUE_PREFIX: '{pns}' })).toBe(
        'Invalid environment variable REDIS_CLUSTER_NODES must be comma-separated host:port seed nodes',
      );
    }
  });

  it('a cluster requires a hash-tagged QUEUE_PREFIX and database 0', () => {
    expect(problem({ APP_KEY, REDIS_CLUSTER_NODES: '127.0.0.1:7000' })).toMatch(/^Invalid environment variable QUEUE_PREFIX must contain a \{hash tag\}/);
    expect(problem({ APP_KEY, REDIS_CLUSTER_NODES: '127.0.0.1:7000', QUEUE_PREFIX: 'pns' })).toMatch(/QUEUE_PREFIX/);
    expect(problem({ APP_KEY, REDIS_CLUSTER_NODES: '127.0.0.1:7000', QUEUE_PREFIX: '{pns}', REDIS_URL: 'redis://127.0.0.1:6379/2' })).toMatch(
      /^Invalid environment variable REDIS_URL must not select a database/,
    );
    for (const url of ['redis://127.0.0.1:6379', 'redis://127.0.0.1:6379/', 'redis://127.0.0.1:6379/0', 'rediss://user:secret@cache.internal:6380']) {
      expect(problem({ APP_KEY, REDIS_CLUSTER_NODES: '127.0.0.1:7000', QUEUE_PREFIX: '{pns}', REDIS_URL: url })).toBeNull();
    }
  });
});

describe('OIDC sign-in variables (docs/api.md#oidc)', () => {
  const admin = { APP_KEY, ADMIN_USER: 'ops', ADMIN_PASSWORD: 'a-long-dashboard-password' };
  const oidc = {
    ADMIN_OIDC_ISSUER: 'https://id.example.com',
    ADMIN_OIDC_CLIENT_ID: 'pns',
    ADMIN_OIDC_CLIENT_SECRET: 'shh',
    PUBLIC_URL: 'https://push.example.com',
  };

  it('takes all three with PUBLIC_URL on a dashboard that is on, an https issuer or an http one on loopback', () => {
    expect(problem({ ...admin, ...oidc })).toBeNull();
    expect(problem({ ...admin, ...oidc, ADMIN_OIDC_ISSUER: 'http://127.0.0.1:4100/oidc', PUBLIC_URL: 'http://127.0.0.1:3000/' })).toBeNull();
    expect(parseEnv({ APP_KEY }).ADMIN_OIDC_ISSUER).toBeUndefined();
  });

  it('refuses a half configuration, a dashboard that is off, no PUBLIC_URL and an http issuer elsewhere', () => {
    expect(problem({ ...admin, ...oidc, ADMIN_OIDC_CLIENT_SECRET: undefined })).toBe(
      'Invalid environment variable ADMIN_OIDC_CLIENT_SECRET is required when ADMIN_OIDC_ISSUER is set',
    );
    expect(problem({ ...admin, ADMIN_OIDC_CLIENT_ID: 'pns' })).toBe(
      'Invalid environment variable ADMIN_OIDC_ISSUER is required when ADMIN_OIDC_CLIENT_ID is set',
    );
    expect(problem({ APP_KEY, ...oidc })).toMatch(/^Invalid environment variable ADMIN_USER is required when ADMIN_OIDC_ISSUER is set/);
    expect(problem({ ...admin, ...oidc, PUBLIC_URL: undefined })).toMatch(/^Invalid environment variable PUBLIC_URL is required/);
    expect(problem({ ...admin, ...oidc, PUBLIC_URL: 'https://push.example.com/admin' })).toMatch(
      /^Invalid environment variable PUBLIC_URL must be an http\(s\) origin/,
    );
    expect(problem({ ...admin, ...oidc, ADMIN_OIDC_ISSUER: 'http://id.example.com' })).toBe(
      'Invalid environment variable ADMIN_OIDC_ISSUER must be an https URL (http only on loopback)',
    );
    expect(problem({ ...admin, ...oidc, ADMIN_OIDC_CLIENT_SECRET: 'secret-value-here', ADMIN_OIDC_CLIENT_ID: undefined })).not.toContain('secret-value-here');
  });
});
