import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { isAbsolute, relative, resolve } from 'node:path';
import { Client } from 'pg';
import { parse } from 'yaml';
import { deployedNodeOptions } from '../../bench/lib/stack';
import { EnvironmentVariables, parseEnv, VARIABLES } from '../../src/config/env';
import { assertBuilt, ChildEnv, freePort, killAllServices, ROOT, runNode, serviceEnv, ServiceProcess, TEST_APP_KEY } from '../support/processes';
import { databaseUrl, deleteRedisPrefix, TEST_REDIS_URL, withAdminClient } from '../support/services';
import { createTestDatabase, dropTestDatabase, testDatabaseName } from '../support/test-database';

/**
 * Issue #4.6. No Docker engine runs where the tests run, so the Dockerfile and docker-compose.yml
 * are checked by reading them, and what they run (CMD, HEALTHCHECK, the compose commands) is run
 * here from the built output (dist/, which the image copies as is).
 */
jest.setTimeout(60_000);

interface Instruction {
  keyword: string;
  args: string;
}
interface Stage {
  name?: string;
  from: string;
  instructions: Instruction[];
}

/** Dockerfile instructions by stage: continuation lines joined, comments dropped. */
function parseDockerfile(text: string): Stage[] {
  const logical: string[] = [];
  let pending = '';
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (pending === '' && (line === '' || line.startsWith('#'))) continue;
    if (line.startsWith('#')) continue;
    if (line.endsWith('\\')) {
      pending += `${line.slice(0, -1)} `;
      continue;
    }
    logical.push(pending + line);
    pending = '';
  }
  const stages: Stage[] = [];
  for (const line of logical) {
    const [, keyword, args] = /^(\S+)\s*(.*)$/.exec(line)!;
    const upper = keyword.toUpperCase();
    if (upper === 'FROM') {
      const [, from, name] = /^(\S+)(?:\s+AS\s+(\S+))?$/i.exec(args)!;
      stages.push({ from, name, instructions: [] });
    } else {
      stages[stages.length - 1].instructions.push({ keyword: upper, args });
    }
  }
  return stages;
}

/** The exec (JSON) form of CMD/ENTRYPOINT/HEALTHCHECK CMD; the shell form would not get signals. */
function execForm(args: string): string[] {
  const parsed = JSON.parse(args) as unknown;
  if (!Array.isArray(parsed) || !parsed.every((item) => typeof item === 'string')) throw new Error(`not an exec form: ${args}`);
  return parsed;
}

/** Where a path given to `node` inside the image (WORKDIR /app) is in this checkout. */
function builtFile(script: string, workdir: string): string {
  const inImage = isAbsolute(script) ? script : resolve(workdir, script);
  const fromApp = relative('/app', inImage);
  if (fromApp.startsWith('..')) throw new Error(`${script} is outside /app`);
  return resolve(ROOT, fromApp);
}

/** Compose interpolation: `${VAR:?message}` gets `given[VAR]`, `${VAR:-default}` its default. */
function interpolate(value: string, given: Record<string, string>): string {
  return value.replace(/\$\{([A-Z0-9_]+)(?::([?-])([^}]*))?\}/g, (_, name: string, kind?: string, rest?: string) =>
    name in given ? given[name] : kind === '-' ? (rest ?? '') : '',
  );
}

const referencedVariables = (value: string) => [...value.matchAll(/\$\{([A-Z0-9_]+)/g)].map((match) => match[1]);

const seconds = (duration: string) => {
  const match = /^(\d+)(ms|s|m)$/.exec(duration);
  if (!match) throw new Error(`unexpected duration ${duration}`);
  return Number(match[1]) * { ms: 0.001, s: 1, m: 60 }[match[2] as 'ms' | 's' | 'm'];
};

describe('Dockerfile (issue #4.6)', () => {
  const stages = parseDockerfile(readFileSync(resolve(ROOT, 'Dockerfile'), 'utf8'));
  const runtime = stages[stages.length - 1];
  const all = (stage: Stage, keyword: string) => stage.instructions.filter((i) => i.keyword === keyword);
  const last = (stage: Stage, keyword: string) => all(stage, keyword).at(-1);
  const workdir = last(runtime, 'WORKDIR')!.args;

  beforeAll(() => assertBuilt());

  it('is multi-stage: dependencies and compiler only in the build stage, the runtime gets dist/ and production modules', () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    const build = stages.find((stage) => all(stage, 'RUN').some((run) => /\bnpm run build\b/.test(run.args)))!;
    expect(build).toBeDefined();
    expect(build).not.toBe(runtime);
    expect(all(runtime, 'COPY').map((copy) => copy.args)).toContain(`--from=${build.name} /app/dist ./dist`);
    expect(all(runtime, 'RUN').some((run) => /npm ci\b.*--omit=dev/.test(run.args))).toBe(true);
    expect(workdir).toBe('/app');
    // The build stage copies only what exists and what .dockerignore lets through.
    const ignored = readFileSync(resolve(ROOT, '.dockerignore'), 'utf8')
      .split('\n')
      .map((line) => line.trim());
    for (const copy of all(build, 'COPY').filter((c) => !c.args.startsWith('--from'))) {
      for (const source of copy.args.split(/\s+/).slice(0, -1)) {
        expect({ source, exists: existsSync(resolve(ROOT, source)), ignored: ignored.includes(source) }).toEqual({ source, exists: true, ignored: false });
      }
    }
    for (const entry of ['node_modules', 'dist', '.env', '.git']) expect(ignored).toContain(entry);
  });

  it('builds and runs on the Node version that CI and development use (.node-version), which package.json requires', () => {
    const pinned = readFileSync(resolve(ROOT, '.node-version'), 'utf8').trim();
    expect(pinned).toMatch(/^24\.\d+\.\d+$/);
    for (const stage of stages) expect(stage.from).toBe(`node:${pinned}-bookworm-slim`);
    const pkg = JSON.parse(readFileSync(resolve(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } };
    expect(pkg.engines.node).toBe('>=24');
    // The tests themselves run on it: .ci/run puts .node/<version>/bin first on PATH.
    expect(process.version).toBe(`v${pinned}`);
  });

  it('runs as a non-root user', () => {
    const user = last(runtime, 'USER')?.args;
    expect(user).toBeDefined();
    expect(['root', '0']).not.toContain(user!.split(':')[0]);
  });

  it('runs tini as PID 1, installed in the runtime stage, so SIGTERM reaches Node', () => {
    expect(execForm(last(runtime, 'ENTRYPOINT')!.args)).toEqual(['/usr/bin/tini', '--']);
    expect(all(runtime, 'RUN').some((run) => /apt-get install\b.*\btini\b/.test(run.args))).toBe(true);
    // Docker stops with SIGTERM unless told otherwise; main.ts drains on SIGTERM.
    for (const signal of all(runtime, 'STOPSIGNAL')) expect(signal.args).toBe('SIGTERM');
  });

  it('CMD and HEALTHCHECK run scripts that exist in the built output', () => {
    const cmd = execForm(last(runtime, 'CMD')!.args);
    expect(cmd).toEqual(['node', 'dist/src/main.js']);
    expect(existsSync(builtFile(cmd[1], workdir))).toBe(true);

    const healthcheck = last(runtime, 'HEALTHCHECK')!.args;
    const [, options, command] = /^((?:--\S+\s+)*)CMD\s+(.*)$/.exec(healthcheck)!;
    const probe = execForm(command);
    expect(probe[0]).toBe('node');
    expect(existsSync(builtFile(probe[1], workdir))).toBe(true);
    // The probe gives up (2 s) before Docker kills it, so its reason reaches `docker inspect`.
    expect(seconds(/--timeout=(\S+)/.exec(options)![1])).toBeGreaterThan(2);
  });

  it('exposes the API and metrics ports at their defaults', () => {
    const defaults = new EnvironmentVariables();
    const exposed = all(runtime, 'EXPOSE').flatMap((e) => e.args.split(/\s+/));
    expect(exposed).toEqual(expect.arrayContaining([String(defaults.PORT), String(defaults.METRICS_PORT)]));
  });
});

describe('the image CMD and HEALTHCHECK, run from dist/', () => {
  let database: { name: string; url: string };
  let queuePrefix: string;
  const healthcheck = (env: ChildEnv) => runNode(resolve(ROOT, 'dist/src/health/healthcheck.js'), [], { env, timeoutMs: 15_000 });

  // NODE_ENV=test keeps the checkout's .env out of it: the container has none.
  const containerEnv = (extra: ChildEnv): ChildEnv => serviceEnv({ databaseUrl: database.url, queuePrefix }, { LOG_LEVEL: 'warn', ...extra });

  beforeAll(async () => {
    assertBuilt();
    database = await createTestDatabase();
    queuePrefix = `test-${randomBytes(6).toString('hex')}`;
  });
  afterAll(async () => {
    await killAllServices();
    if (database) await dropTestDatabase(database.name);
    if (queuePrefix) await deleteRedisPrefix(queuePrefix);
  });

  it('api mode: healthy while it serves /health/live on PORT, unhealthy once it has exited on SIGTERM', async () => {
    const port = await freePort();
    const env = containerEnv({ APP_MODE: 'api', PORT: String(port), METRICS_PORT: '0' });
    const service = ServiceProcess.start(env);
    await service.waitForHttp(port);
    const healthy = await healthcheck(env);
    expect({ code: healthy.code, stderr: healthy.stderr }).toEqual({ code: 0, stderr: '' });
    expect(await service.stop('SIGTERM')).toEqual({ code: 0, signal: null });
    const down = await healthcheck(env);
    expect(down.code).toBe(1);
    expect(down.stderr).toContain(`http://127.0.0.1:${port}/health/live did not answer`);
  });

  it('worker mode: probed on METRICS_PORT, since a worker opens no API port', async () => {
    const metricsPort = await freePort();
    const env = containerEnv({ APP_MODE: 'worker', PORT: String(await freePort()), METRICS_PORT: String(metricsPort) });
    const service = ServiceProcess.start(env);
    await service.waitForHttp(metricsPort);
    expect((await healthcheck(env)).code).toBe(0);
    expect(await service.stop('SIGTERM')).toEqual({ code: 0, signal: null });
    expect((await healthcheck(env)).code).toBe(1);
  });

  it('worker mode with METRICS_PORT=0 has nothing to probe and says so', async () => {
    const result = await healthcheck(containerEnv({ APP_MODE: 'worker', METRICS_PORT: '0' }));
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/no listener to probe/);
  });

  it('a bad environment is unhealthy, with the line naming the variable', async () => {
    const result = await healthcheck(containerEnv({ APP_MODE: 'api', PORT: 'eighty' }));
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/PORT/);
  });
});

describe('docker-compose.yml (issue #4.6)', () => {
  type Service = {
    image?: string;
    build?: unknown;
    command?: string[];
    environment?: Record<string, string>;
    healthcheck?: { test?: string[]; disable?: boolean };
    depends_on?: Record<string, { condition: string; restart?: boolean }>;
    stop_grace_period?: string;
    restart?: string;
  };
  const compose = parse(readFileSync(resolve(ROOT, 'docker-compose.yml'), 'utf8'), { merge: true }) as { services: Record<string, Service> };
  const { services } = compose;
  const ours = ['migrate', 'api', 'worker'] as const;
  /** What an operator must set for the service to start; everything else has a default. */
  const required = { APP_KEY: TEST_APP_KEY };
  const text = readFileSync(resolve(ROOT, 'docker-compose.yml'), 'utf8');

  it('needs no variable to bring up postgres and redis alone (Compose interpolates the whole file first)', () => {
    // `${VAR:?message}` would make `docker compose up -d postgres redis` fail without APP_KEY.
    const code = text.split('\n').filter((line) => !line.trim().startsWith('#'));
    expect(code.filter((line) => /\$\{[A-Z0-9_]+:?\?/.test(line))).toEqual([]);
  });

  it('publishes PostgreSQL and Redis on the host loopback only, and api on the host for clients', () => {
    const published = (name: string) => (services[name] as { ports?: string[] }).ports ?? [];
    expect(published('postgres')).toEqual(['127.0.0.1:5432:5432']);
    expect(published('redis')).toEqual(['127.0.0.1:6379:6379']);
    for (const name of ['migrate', 'worker']) expect(published(name)).toEqual([]);
  });

  it('starts the service with a clear one-line refusal when APP_KEY is left unset', () => {
    const environment = Object.fromEntries(Object.entries(services.api.environment!).map(([k, v]) => [k, interpolate(String(v), {})]));
    expect(environment.APP_KEY).toBe('');
    expect(() => parseEnv(environment)).toThrow(/APP_KEY/);
  });

  it('runs postgres, redis, a one-shot migrate, api and worker (and the sandbox, only with its profile)', () => {
    expect(Object.keys(services).sort()).toEqual(['api', 'migrate', 'postgres', 'redis', 'sandbox', 'worker']);
    expect(services.migrate.restart).toBe('no');
    const started = Object.keys(services).filter((name) => !(services[name] as { profiles?: string[] }).profiles);
    expect(started.sort()).toEqual(['api', 'migrate', 'postgres', 'redis', 'worker']);
  });

  it('runs the sandbox (docs/testing.md) from the same image with the CLI, published on the host loopback only, its directory a volume', () => {
    const sandbox = services.sandbox as Service & { profiles?: string[]; ports?: string[]; volumes?: string[] };
    expect(sandbox.profiles).toEqual(['sandbox']);
    expect(sandbox.image).toBe(services.api.image);
    expect(sandbox.command?.slice(0, 3)).toEqual(['node', 'dist/src/cli.js', 'sandbox']);
    expect(existsSync(builtFile(sandbox.command![1], '/app'))).toBe(true);
    expect(sandbox.ports).toEqual(['127.0.0.1:4400-4403:4400-4403']);
    expect(sandbox.volumes).toEqual(['sandbox:/home/node/.pns-sandbox']);
  });

  it('builds one image from this Dockerfile and runs it as migrate, api and worker', () => {
    const images = new Set(ours.map((name) => services[name].image));
    expect(images.size).toBe(1);
    expect([...images][0]).toEqual(expect.any(String));
    for (const name of ours) expect({ name, build: services[name].build }).toEqual({ name, build: '.' });
    expect(existsSync(resolve(ROOT, 'Dockerfile'))).toBe(true);
  });

  it('selects the mode with APP_MODE (api and worker keep the image CMD), and migrate runs the CLI migrate command', () => {
    expect(services.api.command).toBeUndefined();
    expect(services.worker.command).toBeUndefined();
    expect(services.api.environment!.APP_MODE).toBe('api');
    expect(services.worker.environment!.APP_MODE).toBe('worker');
    expect(services.migrate.environment!.APP_MODE).toBeUndefined();
    expect(services.migrate.command).toEqual(['node', 'dist/src/cli.js', 'migrate']);
    expect(existsSync(builtFile(services.migrate.command![1], '/app'))).toBe(true);
  });

  it('uses only environment variables the configuration knows, with values it accepts', () => {
    // Ours, plus Node's own NODE_OPTIONS (the worker's heap cap).
    const known = new Set<string>([...VARIABLES, 'NODE_OPTIONS']);
    for (const name of ours) {
      const environment = services[name].environment ?? {};
      for (const [key, value] of Object.entries(environment)) {
        expect({ service: name, key, known: known.has(key) }).toEqual({ service: name, key, known: true });
        // Interpolated from the operator's shell: those are configuration variables too.
        // POSTGRES_PASSWORD: the postgres image's own, which DATABASE_URL must repeat.
        for (const variable of referencedVariables(String(value))) {
          expect({ service: name, variable, known: known.has(variable) || variable === 'POSTGRES_PASSWORD' }).toEqual({ service: name, variable, known: true });
        }
      }
      const resolved = Object.fromEntries(Object.entries(environment).map(([key, value]) => [key, interpolate(String(value), required)]));
      expect(() => parseEnv(resolved)).not.toThrow();
    }
  });

  it("caps only the worker's V8 heap, and the benchmark runs its worker with that cap", () => {
    const options = String(services.worker.environment!.NODE_OPTIONS);
    const [, limit, semiSpace] = (/^--max-old-space-size=(\d+) --max-semi-space-size=(\d+)$/.exec(options) ?? []).map(Number);
    expect(limit).toBeGreaterThanOrEqual(128);
    expect(limit).toBeLessThanOrEqual(512);
    expect(semiSpace).toBeGreaterThanOrEqual(1);
    expect(semiSpace).toBeLessThanOrEqual(16);
    expect(services.api.environment!.NODE_OPTIONS).toBeUndefined();
    expect(deployedNodeOptions('worker')).toBe(options);
    expect(deployedNodeOptions('api')).toBe('');
  });

  it('starts things in order: postgres and redis healthy, then migrate completed, then api and worker', () => {
    expect(services.migrate.depends_on).toEqual({ postgres: { condition: 'service_healthy' } });
    for (const name of ['api', 'worker']) {
      expect(services[name].depends_on).toEqual({
        postgres: { condition: 'service_healthy' },
        redis: { condition: 'service_healthy' },
        migrate: { condition: 'service_completed_successfully' },
      });
    }
    // Every service waited on as healthy has a healthcheck.
    for (const service of Object.values(services)) {
      for (const [dependency, { condition }] of Object.entries(service.depends_on ?? {})) {
        if (condition === 'service_healthy')
          expect({ dependency, test: services[dependency].healthcheck?.test }).toEqual({ dependency, test: expect.any(Array) });
      }
    }
  });

  it('health-checks api and worker with the image probe, which exists in dist/', () => {
    for (const name of ['api', 'worker']) {
      const test = services[name].healthcheck!.test!;
      expect(test.slice(0, 2)).toEqual(['CMD', 'node']);
      expect(existsSync(builtFile(test[2], '/app'))).toBe(true);
    }
    expect(services.migrate.healthcheck).toEqual({ disable: true });
  });

  it('gives api and worker longer than SHUTDOWN_TIMEOUT_MS to drain before Docker kills them', () => {
    for (const name of ['api', 'worker']) {
      const configured = parseEnv(Object.fromEntries(Object.entries(services[name].environment!).map(([k, v]) => [k, interpolate(String(v), required)])));
      expect(seconds(services[name].stop_grace_period ?? '10s')).toBeGreaterThan(configured.SHUTDOWN_TIMEOUT_MS / 1000);
    }
  });

  it('runs Redis with noeviction, as BullMQ requires', () => {
    const command = services.redis.command as unknown as string[];
    expect(command[command.indexOf('--maxmemory-policy') + 1]).toBe('noeviction');
  });

  it("migrate's command, run from dist/, migrates an empty database", async () => {
    assertBuilt();
    const name = testDatabaseName('container_migrate');
    await withAdminClient((client) => client.query(`CREATE DATABASE "${name}"`));
    try {
      const [node, script, ...args] = services.migrate.command!;
      expect(node).toBe('node');
      const environment = Object.fromEntries(Object.entries(services.migrate.environment!).map(([k, v]) => [k, interpolate(String(v), required)]));
      const result = await runNode(builtFile(script, '/app'), args, {
        env: { ...environment, DATABASE_URL: databaseUrl(name), REDIS_URL: TEST_REDIS_URL, NODE_ENV: 'test' },
      });
      expect({ code: result.code, stderr: result.stderr.slice(-2000) }).toEqual({ code: 0, stderr: expect.any(String) });
      const client = new Client({ connectionString: databaseUrl(name) });
      await client.connect();
      const tables = await client
        .query(`SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'`)
        .then(({ rows }) => rows.map((row) => row.table_name as string))
        .finally(() => client.end());
      expect(tables).toEqual(expect.arrayContaining(['apps', 'api_tokens', 'installations', 'notifications', 'deliveries']));
    } finally {
      await dropTestDatabase(name);
    }
  });
});
