import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { preProcessFile } from 'typescript';

/**
 * The module map of docs/architecture.md, enforced: each top-level folder of src/ may import only
 * the folders listed here (its own always). Change the page and this table together.
 */
const MAY_IMPORT: Record<string, string[]> = {
  // config reads the Web Push host pattern from common; common is given what it needs of config.
  config: ['common'],
  common: [],
  queue: ['common', 'config'],
  metrics: ['common', 'config', 'queue'],
  logging: ['auth', 'common', 'config'],
  // apps seals its identity secrets with credentials' secret box (secret-box.ts only).
  apps: ['common', 'config', 'credentials'],
  auth: ['apps', 'common', 'config'],
  credentials: ['apps', 'common', 'config'],
  installations: ['apps', 'auth', 'common', 'config'],
  // The per-user routes' access rule (user-access.ts), asked by auth's guard through ModuleRef.
  users: ['apps', 'auth', 'common', 'config'],
  // Topics and preferences; per-user routes through users/user-access.ts.
  topics: ['apps', 'auth', 'common', 'config', 'users'],
  // Templates (docs/api.md#templates): the key rule is a topic's; a template must fit the app's platforms (credentials, delivery's payload builders).
  templates: ['apps', 'auth', 'common', 'config', 'credentials', 'delivery', 'topics'],
  notifications: ['apps', 'auth', 'common', 'config', 'credentials', 'installations', 'metrics', 'queue', 'delivery', 'templates', 'topics'],
  delivery: ['common', 'config', 'credentials', 'metrics', 'queue'],
  // The inbox API (docs/api.md#inbox): its list cursors are the notification list's (list-cursor.ts).
  inbox: ['apps', 'auth', 'common', 'config', 'notifications', 'users'],
  // Live Activities: the API's side (the worker's is delivery/live-activity/). Its entities refer to
  // apps and installations; updates take an Idempotency-Key as sends do (notifications' service and
  // table) and are refused at once when they cannot fit (delivery's payload builder); broadcast
  // channels are managed at APNs while the request waits (credentials, delivery's APNs provider).
  'live-activities': ['apps', 'auth', 'common', 'config', 'credentials', 'delivery', 'installations', 'notifications', 'queue'],
  health: ['auth', 'common', 'config', 'database', 'queue'],
  'rate-limit': ['auth', 'common', 'config', 'queue'],
  // The operator dashboard reuses the features' services (never their repositories' SQL twice);
  // auth for @Public() (its own session guard replaces the bearer token); rate-limit's Redis
  // storage counts failed logins; webhooks tells the webhook failures; live-activities lists an
  // app's activities and channels; topics, users and inbox show a user's page and edit topics;
  // auth's tokens and delivery's credential check serve the owners' app pages, as the CLI's commands.
  admin: [
    'apps',
    'audit',
    'auth',
    'common',
    'config',
    'credentials',
    'delivery',
    'inbox',
    'installations',
    'live-activities',
    'notifications',
    'operators',
    'queue',
    'rate-limit',
    'templates',
    'topics',
    'users',
    'webhooks',
  ],
  // Operator accounts, grants, sessions' storage, invitations (docs/api.md#operators).
  operators: ['common', 'config'],
  // The audit log (docs/api.md#audit-log): recorded by admin and the CLI, read by admin and GET /api/v1/audit-log.
  audit: ['auth', 'common', 'config'],
  // webhooks seals its signing secrets with credentials' secret box, builds its bodies with the
  // notification and installation resource mappers (the public resources, nothing more), counts
  // its calls in metrics and queues them through queue/jobs.ts.
  webhooks: ['apps', 'common', 'config', 'credentials', 'inbox', 'installations', 'metrics', 'notifications', 'queue'],
  database: [
    'apps',
    'auth',
    'common',
    'config',
    'credentials',
    'delivery',
    'inbox',
    'installations',
    'live-activities',
    'notifications',
    'templates',
    'topics',
    'webhooks',
  ],
  // setup --sandbox stores the credentials a running sandbox prints (its SandboxInfo type);
  // delivery: only its providers, which `credentials:check` asks (docs/api.md#credentials-check).
  cli: ['apps', 'audit', 'auth', 'common', 'config', 'credentials', 'database', 'delivery', 'operators', 'sandbox', 'transfer', 'webhooks'],
  // The web SDK served (docs/api.md#web-sdk): @Public() and the 404.
  sdk: ['auth', 'common'],
  // pns import and export (docs/api.md#import): the installations' rules and stored form.
  transfer: ['apps', 'common', 'config', 'installations'],
  // The SQL files' generator calls every repository on a statement recorder (sql-cases.ts).
  // The QA sandbox (docs/testing.md): loopback push services, started by the CLI only; the
  // platform names of its inbox are the service's.
  sandbox: ['common'],
  queries: [
    'admin',
    'apps',
    'audit',
    'auth',
    'common',
    'config',
    'credentials',
    'delivery',
    'inbox',
    'installations',
    'live-activities',
    'notifications',
    'templates',
    'operators',
    'topics',
    'transfer',
    'webhooks',
  ],
};

/** The wiring: the only files that may import any module (they assemble the processes). */
const WIRING = new Set(['app.module.ts', 'app.factory.ts', 'worker.module.ts', 'worker.factory.ts', 'main.ts', 'cli.ts']);

/** Narrower doors into some modules, for the importers that are not the module itself or the wiring. */
type Door = { files: RegExp; why: string; except?: string[] };
const ONLY_THROUGH: Record<string, Door & { for?: Record<string, Door> }> = {
  // Pure payload builders: the API refuses a send that cannot fit with the same code the providers use.
  // The CLI proves stored credentials with the providers themselves, nothing of the jobs.
  delivery: {
    files:
      /^delivery\/(providers\/(payloads|personalize|live-activity-payload|apns\.provider|providers\.module|credentials-check\.service)|small-sends\/small-sends\.(module|service)|fair-shares\/fanout-shares\.(service|repository)|delivery\.entity)\.ts$/,
    why: 'only the payload builders, the providers module (no queue consumer: live-activities calls APNs channel management; the dashboard checks credentials), small sends (the API fans them out, docs/api.md#small-sends), the fan-out windows (a send due now takes its place, docs/api.md#fair-sharing) and, for database/, the entity',
    for: { cli: { files: /^delivery\/providers\/[a-z0-9-]+(\.[a-z]+)?\.ts$/, why: 'only delivery/providers/' } },
  },
  // notifications reads the platform list and relates its events to installations; no installation logic.
  // webhooks maps a row to the public Installation resource with the API's own mapper; admin looks
  // installations up through InstallationsService, as the API does.
  installations: {
    files: /^installations\/installation\.(entity|resource)\.ts$/,
    why: 'only installation.entity.ts and installation.resource.ts',
    // transfer (pns import) checks and stores lines with the installations' own rules and DTO.
    except: ['admin', 'transfer'],
  },
  // webhooks maps a row to the public InboxMessage resource (inbox.read); nothing else.
  // admin lists a user's inbox through InboxService, as the API does.
  inbox: {
    files: /^inbox\/inbox-message\.(entity|resource)\.ts$/,
    why: 'only inbox-message.entity.ts and inbox-message.resource.ts',
    except: ['admin'],
  },
  // webhooks maps a row to the public Notification resource with the API's own mapper; nothing else.
  // admin sends, reads, cancels and traces through the notifications services, as the API does.
  // live-activities takes an Idempotency-Key with the sends' own service, module and header parser.
  notifications: {
    files:
      /^notifications\/(notification\.(entity|resource)|list-cursor|idempotency\/idempotency(\.service|\.repository|\.module|-key\.decorator)|notifications\.module)\.ts$/,
    why: 'only notification.entity.ts and notification.resource.ts (and idempotency/, for live-activities; list-cursor.ts, for inbox)',
    except: ['admin'],
  },
};

/** delivery's job folders; providers/ speaks the push services' protocols and imports none of them. */
const DELIVERY_JOB = /^delivery\/(fan-out|deliver|sweeper|retention|live-activity|installation-days|ab-tests)\//;

/** Files allowed to reach the database driver directly (every SQL statement lives in a repository). */
const DATABASE_ACCESS = /(\.repository|\.entity)\.ts$|^database\/|^cli\/|^cli\.ts$|^common\/prepared-query\.ts$|^common\/sql\/(bounded|listen)\.ts$|^queries\//;

const SRC = resolve(__dirname);
const ROOT = resolve(SRC, '..');

/** One module of dependency-cruiser's JSON output: a file and what it imports. */
interface Cruised {
  source: string;
  dependencies: { resolved: string; circular: boolean; cycle?: { name: string }[] }[];
}

/** Every file of src/ and bench/ with its imports (type-only ones included), by dependency-cruiser. */
function cruise(): Cruised[] {
  const bin = join(ROOT, 'node_modules/dependency-cruiser/bin/dependency-cruiser.mjs');
  const args = ['--no-config', '--ts-config', 'tsconfig.json', '--ts-pre-compilation-deps', '--do-not-follow', 'node_modules', '-T', 'json', 'src', 'bench'];
  const output = execFileSync(process.execPath, [bin, ...args], { cwd: ROOT, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  return (JSON.parse(output) as { modules: Cruised[] }).modules;
}

/** A file circle as `a -> b -> c`, started at its first file in sort order, so each has one name. */
function fileCircles(modules: Cruised[]): string[] {
  const names = new Set<string>();
  for (const { source, dependencies } of modules) {
    for (const { circular, cycle } of dependencies) {
      if (!circular || !cycle) continue;
      const files = [source, ...cycle.map(({ name }) => name).slice(0, -1)];
      const first = files.indexOf([...files].sort()[0]);
      names.add([...files.slice(first), ...files.slice(0, first)].join(' -> '));
    }
  }
  return [...names].sort();
}

/** Circles between the folders of src/delivery/ (a file of one imports a file of another), as `a/ <-> b/`. */
function folderCircles(modules: Cruised[]): string[] {
  const folderOf = (file: string) => /^(src\/delivery\/[^/]+\/)/.exec(file)?.[1];
  const edges = new Map<string, Set<string>>();
  for (const { source, dependencies } of modules) {
    const from = folderOf(source);
    for (const { resolved } of dependencies) {
      const to = folderOf(resolved);
      if (from && to && from !== to) edges.set(from, (edges.get(from) ?? new Set()).add(to));
    }
  }
  const reaches = (from: string, to: string, seen = new Set<string>()): boolean =>
    [...(edges.get(from) ?? [])].some((next) => next === to || (!seen.has(next) && (seen.add(next), reaches(next, to, seen))));
  const folders = [...edges.keys()].sort();
  const groups = new Map<string, string[]>();
  for (const folder of folders) {
    const group = folders.filter((other) => other === folder || (reaches(folder, other) && reaches(other, folder)));
    if (group.length > 1) groups.set(group.join(' <-> '), group);
  }
  return [...groups.keys()].sort();
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts') ? [path] : [];
  });
}

interface Import {
  /** importing file, relative to src/ with / separators */
  from: string;
  /** the imported module: a path relative to src/ (no extension) or, when `pkg`, a package name */
  to: string;
  pkg?: boolean;
}

/** Every import of `files`, type-only and dynamic ones included. */
export function importsOf(files: string[]): Import[] {
  return files.flatMap((file) => {
    const from = relative(SRC, file).split(sep).join('/');
    return preProcessFile(readFileSync(file, 'utf8'), true, true).importedFiles.map(({ fileName }) =>
      fileName.startsWith('.')
        ? {
            from,
            // A dynamic import names the file with its .js extension (main.ts).
            to: relative(SRC, resolve(dirname(file), fileName.replace(/\.js$/, '')))
              .split(sep)
              .join('/'),
          }
        : { from, to: fileName, pkg: true },
    );
  });
}

const moduleOf = (path: string) => (path.includes('/') ? path.split('/')[0] : path);
const REPOSITORY = /\.repository\.ts$/;
const UPPER_LAYER = /\.(service|controller|processor)$/;

/** What is wrong with `imports`, one line each; empty when the code keeps to the map. */
export function violations(imports: Import[]): string[] {
  const problems: string[] = [];
  for (const { from, to, pkg } of imports) {
    const source = moduleOf(from);
    if (pkg) {
      if (/^(typeorm|@nestjs\/typeorm|pg)(\/|$)/.test(to) && !DATABASE_ACCESS.test(from)) {
        problems.push(`${from} imports ${to}: only repositories (and database/, the CLI) reach the database`);
      }
      continue;
    }
    const target = moduleOf(to);
    if (from.startsWith('delivery/providers/') && DELIVERY_JOB.test(to)) {
      problems.push(`${from} imports ${to}: delivery/providers/ imports no job folder`);
    }
    if (WIRING.has(from) || target === source) {
      if (REPOSITORY.test(from) && UPPER_LAYER.test(to)) {
        problems.push(`${from} imports ${to}: a repository imports no service, controller or processor`);
      }
      continue;
    }
    // Any repository may write its SQL files' cases next to its methods (docs/architecture.md, "SQL files").
    if (/^queries\/(generate-sql|fixtures)$/.test(to)) continue;
    const allowed = MAY_IMPORT[source];
    if (!allowed) {
      problems.push(`${from}: module ${source} is not on the map (src/architecture.spec.ts, docs/architecture.md)`);
      continue;
    }
    if (!allowed.includes(target)) {
      problems.push(`${from} imports ${to}: ${source} may not import ${target}`);
      continue;
    }
    const door = ONLY_THROUGH[target]?.for?.[source] ?? ONLY_THROUGH[target];
    if (
      door &&
      !door.except?.includes(source) &&
      !(source === 'queries' && REPOSITORY.test(`${to}.ts`)) &&
      !door.files.test(`${to}.ts`) &&
      !(source === 'database' && /\.entity$/.test(to))
    ) {
      problems.push(`${from} imports ${to}: ${source} may import ${door.why} of ${target}`);
    }
    if (REPOSITORY.test(from) && UPPER_LAYER.test(to)) {
      problems.push(`${from} imports ${to}: a repository imports no service, controller or processor`);
    }
  }
  return problems;
}

describe('module boundaries (docs/architecture.md)', () => {
  const imports = importsOf(sourceFiles(SRC));

  it('keeps every import of src/ to the module map', () => {
    expect(violations(imports)).toEqual([]);
  });

  it('puts every top-level folder on the map', () => {
    const folders = readdirSync(SRC, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name);
    expect(folders.filter((folder) => !(folder in MAY_IMPORT))).toEqual([]);
  });

  /** The files of src/ that `roots` import, directly or not, and the packages those import. */
  const reachedFrom = (...roots: string[]) => {
    const bySource = new Map<string, string[]>();
    const packages = new Map<string, string[]>();
    for (const { from, to, pkg } of imports) {
      if (pkg) packages.set(from, [...(packages.get(from) ?? []), to]);
      else bySource.set(from, [...(bySource.get(from) ?? []), `${to}.ts`]);
    }
    const reached = new Set<string>();
    const visit = (file: string) => {
      if (reached.has(file)) return;
      reached.add(file);
      for (const next of bySource.get(file) ?? []) visit(next);
    };
    for (const root of roots) visit(root);
    return { files: [...reached], packages: new Set([...reached].flatMap((file) => packages.get(file) ?? [])) };
  };

  it('keeps the sandbox out of every api, worker and all process: only the CLI reaches it', () => {
    const { files } = reachedFrom('main.ts');
    expect(files).toContain('app.module.ts');
    expect(files).toContain('worker.module.ts');
    expect(files.filter((file) => file.startsWith('sandbox/'))).toEqual([]);
  });

  it("keeps the API's code out of a worker: no controller, dashboard, Express or Swagger UI", () => {
    const { files, packages } = reachedFrom('worker.module.ts', 'worker.factory.ts');
    expect(files).toContain('delivery/delivery.module.ts');
    expect(files.filter((file) => /\.controller\.ts$|^admin\/|^app\.(module|factory)\.ts$/.test(file))).toEqual([]);
    // Type-only imports load nothing at run time.
    const loads = (file: string, pkg: string) =>
      existsSync(join(SRC, file)) && new RegExp(`^import (?!type )[^;]*from '${pkg}'`, 'm').test(readFileSync(join(SRC, file), 'utf8'));
    const web = [...packages].filter((pkg) => /^(@nestjs\/platform-express|express|swagger-ui-dist)(\/|$)/.test(pkg));
    expect(web.flatMap((pkg) => files.filter((file) => loads(file, pkg)).map((file) => `${file}: ${pkg}`))).toEqual([]);
  });

  describe('import circles', () => {
    let circles: string[];
    beforeAll(() => {
      const modules = cruise();
      circles = [...fileCircles(modules), ...folderCircles(modules)];
    }, 120_000);

    it('has none between files of src/ and bench/, nor between the folders of src/delivery/', () => {
      expect(circles).toEqual([]);
    });

    it('names each circle once, whichever file or folder it is found from', () => {
      const file = (source: string, ...cycle: string[]) => ({
        source,
        dependencies: [{ resolved: cycle[0], circular: true, cycle: cycle.map((name) => ({ name })) }],
      });
      expect(fileCircles([file('b.ts', 'c.ts', 'a.ts', 'b.ts'), file('a.ts', 'b.ts', 'c.ts', 'a.ts')])).toEqual(['a.ts -> b.ts -> c.ts']);
      const imports = (source: string, resolved: string) => ({ source, dependencies: [{ resolved, circular: false }] });
      const modules = [
        imports('src/delivery/sweeper/a.ts', 'src/delivery/retention/b.ts'),
        imports('src/delivery/retention/c.ts', 'src/delivery/deliver/d.ts'),
        imports('src/delivery/deliver/e.ts', 'src/delivery/sweeper/f.ts'),
        imports('src/delivery/fan-out/g.ts', 'src/delivery/deliver/h.ts'),
        imports('src/delivery/delivery.module.ts', 'src/delivery/fan-out/g.ts'),
      ];
      expect(folderCircles(modules)).toEqual(['src/delivery/deliver/ <-> src/delivery/retention/ <-> src/delivery/sweeper/']);
    });
  });

  it('refuses the crossings the page forbids', () => {
    expect(
      violations([
        { from: 'delivery/deliver/deliveries.service.ts', to: 'notifications/notification.entity' },
        { from: 'common/http/openapi.ts', to: 'auth/auth.decorators' },
        { from: 'notifications/notifications.service.ts', to: 'delivery/deliver/deliveries.service' },
        { from: 'credentials/credentials.service.ts', to: 'delivery/providers/push-provider' },
        { from: 'installations/installations.service.ts', to: 'typeorm', pkg: true },
        { from: 'delivery/deliver/deliveries.repository.ts', to: 'delivery/deliver/deliveries.service' },
        { from: 'delivery/providers/apns.provider.ts', to: 'delivery/deliver/retry-policy' },
        { from: 'cli/credentials-check.command.ts', to: 'delivery/deliver/deliveries.service' },
      ]),
    ).toHaveLength(8);
  });
});
