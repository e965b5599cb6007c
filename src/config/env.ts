import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseEnv as parseDotEnv } from 'node:util';
import { getCACertificates, setDefaultCACertificates } from 'node:tls';
import { plainToInstance, Transform } from 'class-transformer';
import { IsBoolean, IsIn, IsInt, IsIP, IsOptional, IsString, Matches, Max, Min, MinLength, ValidateIf, ValidationError, validateSync } from 'class-validator';
import { CORS_ORIGIN } from '../common/http/cors';
import { ALLOWED_HOST_ENTRY } from '../common/web-push-hosts';
import { QUEUES } from '../common/queues';

/** Raised when the environment is unusable; its message is the one line an operator sees. */
export class ConfigError extends Error {}

const toInt = ({ value }: { value: unknown }) => (typeof value === 'string' && /^-?\d+$/.test(value.trim()) ? Number(value) : value);
/**
 * An integer variable from `min` to `max` (inclusive; no upper bound when omitted): the decorator
 * run every integer variable had, written once. Applied in the order those decorators ran
 * (nearest the property first), so each message stays the one an operator reads.
 */
function Int(min: number, max?: number, messages = { min: `must be at least ${min}`, max: `must be at most ${max}` }): PropertyDecorator {
  const decorators: PropertyDecorator[] = [
    ...(max === undefined ? [] : [Max(max, { message: messages.max })]),
    Min(min, { message: messages.min }),
    IsInt({ message: 'must be an integer' }),
    Transform(toInt),
  ];
  return (target, property) => decorators.forEach((decorate) => decorate(target, property));
}

/** A TCP port; 0 where the variable allows turning the listener off. */
const Port = () => Int(0, 65535, { min: 'must be a port number', max: 'must be a port number' });

const toBool = ({ value }: { value: unknown }) => (value === 'true' || value === '1' ? true : value === 'false' || value === '0' ? false : value);
const URL_PATTERN = /^[a-z][a-z0-9+.-]*:\/\/\S+$/i;
/**
 * Letters, digits, - and _, with at most one non-empty `{...}`: Redis hashes a key by its first
 * `{...}` (cluster spec, "hash tags"), so the BullMQ keys of every queue land in one slot.
 */
const QUEUE_PREFIX_PATTERN = /^(?=.{1,64}$)[A-Za-z0-9_-]*(\{[A-Za-z0-9_-]+\}[A-Za-z0-9_-]*)?$/;
/** `host:port` (a name, an IPv4 address or a bracketed IPv6 address), comma-separated. */
const CLUSTER_NODE = '(?:\\[[0-9A-Fa-f:.]+\\]|[A-Za-z0-9.-]+):\\d{1,5}';
const CLUSTER_NODES_PATTERN = new RegExp(`^${CLUSTER_NODE}(?: *, *${CLUSTER_NODE})*$`);
const ALLOWED_HOSTS_PATTERN = new RegExp(`^${ALLOWED_HOST_ENTRY.source.slice(1, -1)}(?: *, *${ALLOWED_HOST_ENTRY.source.slice(1, -1)})*$`, 'i');
const QUEUE_NAME = `(?:${QUEUES.join('|')})`;
const WORKER_QUEUES_PATTERN = new RegExp(`^${QUEUE_NAME}(?: *, *${QUEUE_NAME})*$`);
const CORS_ORIGINS_PATTERN = new RegExp(`^(?:\\*|${CORS_ORIGIN.source.slice(1, -1)}(?: *, *${CORS_ORIGIN.source.slice(1, -1)})*)$`, 'i');
const PUBLIC_URL_PATTERN = /^https?:\/\/[^/\s?#]+\/?$/i;
/** A loopback host, where an http issuer is allowed (a provider on the same machine, tests); any other needs https. */
export const LOOPBACK_HOST = /^(127(\.\d{1,3}){3}|localhost|\[::1\])$/i;
/** The dashboard credentials come as a pair: one without the other is a configuration mistake. */
const adminConfigured = (env: { ADMIN_USER?: string; ADMIN_PASSWORD?: string }) => env.ADMIN_USER !== undefined || env.ADMIN_PASSWORD !== undefined;

/**
 * Every environment variable the service reads (docs/api.md#environment, plus the operational ones
 * documented in the README). Defaults suit a local checkout with PostgreSQL and Redis running.
 */
export class EnvironmentVariables {
  @IsIn(['api', 'worker', 'all'], { message: 'must be one of api, worker, all' })
  APP_MODE: 'api' | 'worker' | 'all' = 'all';

  @Port()
  PORT = 3000;

  /** Interface the API listens on; unset means every interface. */
  @IsOptional()
  @IsIP(undefined, { message: 'must be an IP address (0.0.0.0, ::, 127.0.0.1...)' })
  HOST?: string;

  @Matches(/^(postgres(ql)?:\/\/\S+|embedded)$/, { message: 'must be a postgres:// URL or embedded' })
  DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/push';

  @IsString()
  @MinLength(1, { message: 'must not be empty' })
  PNS_DATA_DIR = '.pns';

  @Int(1, 1000)
  DATABASE_POOL_SIZE = 20;

  /**
   * Named prepared statements for the API's hot statements (common/prepared-query.ts); false for a
   * transaction pooler that cannot keep them (PgBouncer before 1.21).
   */
  @Transform(toBool)
  @IsBoolean({ message: 'must be true or false' })
  DATABASE_PREPARED_STATEMENTS = true;

  /**
   * Keep authenticated tokens in memory while a connection LISTENs for token changes
   * (auth/token-cache.ts); false reads every token from the database, for a transaction pooler
   * that does not pass notifications on (PgBouncer in transaction mode).
   */
  @Transform(toBool)
  @IsBoolean({ message: 'must be true or false' })
  TOKEN_CACHE = true;

  /** How long start-up waits for PostgreSQL to accept a connection before exiting 1. */
  @Transform(toInt)
  @IsInt({ message: 'must be an integer' })
  @Min(0, { message: 'must be at least 0' })
  DATABASE_CONNECT_TIMEOUT_MS = 60000;

  @Transform(toBool)
  @IsBoolean({ message: 'must be true or false' })
  MIGRATE_ON_START = false;

  @IsIn(['redis', 'postgres'], { message: 'must be one of redis, postgres' })
  QUEUE_BACKEND: 'redis' | 'postgres' = 'redis';

  @Matches(/^rediss?:\/\/\S+$/, { message: 'must be a redis:// or rediss:// URL' })
  REDIS_URL = 'redis://127.0.0.1:6379';

  /**
   * Redis Cluster seed nodes, `host:port,host:port`; unset means the single Redis of REDIS_URL.
   * With it, REDIS_URL gives only the credentials and TLS (`rediss://`) every node shares.
   */
  @IsOptional()
  @Matches(CLUSTER_NODES_PATTERN, { message: 'must be comma-separated host:port seed nodes' })
  REDIS_CLUSTER_NODES?: string;

  /**
   * Namespaces every BullMQ key, so several deployments (or test files) can share one Redis. One
   * `{hash tag}` may be part of it, as a Redis Cluster requires (docs/operations.md, Scaling).
   */
  @Matches(QUEUE_PREFIX_PATTERN, { message: 'must be 1 to 64 letters, digits, - or _, with at most one {hash tag} (e.g. {pns})' })
  QUEUE_PREFIX = 'pns';

  /** While Redis stays unreachable, one log line per this interval, however many clients retry. */
  @Int(100)
  REDIS_LOG_INTERVAL_MS = 10000;

  @IsString({ message: 'is required: a 32-byte key in base64 (openssl rand -base64 32)' })
  @Matches(/^[A-Za-z0-9+/]{43}=$/, {
    message: 'must be 32 bytes encoded in base64 (openssl rand -base64 32)',
  })
  APP_KEY: string;

  /**
   * The key APP_KEY replaces, during a rotation: secrets that do not open under APP_KEY are tried
   * under this one until `app-key:rotate` has re-sealed them (docs/operations.md "Rotating APP_KEY").
   */
  @IsOptional()
  @Matches(/^[A-Za-z0-9+/]{43}=$/, { message: 'must be 32 bytes encoded in base64, like APP_KEY' })
  APP_KEY_PREVIOUS?: string;

  @IsOptional()
  @Matches(URL_PATTERN, { message: 'must be an absolute URL' })
  APNS_URL?: string;

  /** APNs channel management (Live Activity broadcast channels); unset: Apple's production or sandbox host, per app, as APNS_URL. */
  @IsOptional()
  @Matches(URL_PATTERN, { message: 'must be an absolute URL' })
  APNS_CHANNELS_URL?: string;

  @Matches(URL_PATTERN, { message: 'must be an absolute URL' })
  FCM_URL = 'https://fcm.googleapis.com';

  @Matches(URL_PATTERN, { message: 'must be an absolute URL' })
  GOOGLE_TOKEN_URL = 'https://oauth2.googleapis.com/token';

  /** Huawei Push Kit's base URL (docs/api.md#huawei). */
  @Matches(URL_PATTERN, { message: 'must be an absolute URL' })
  HMS_URL = 'https://push-api.cloud.huawei.com';

  /** Huawei's OAuth 2.0 token endpoint (client credentials). */
  @Matches(URL_PATTERN, { message: 'must be an absolute URL' })
  HMS_TOKEN_URL = 'https://oauth-login.cloud.huawei.com/oauth2/v3/token';

  /**
   * Hosts Web Push subscriptions may name (comma-separated names or `.suffix`es). Unset: the
   * public push services (common/web-push-hosts.ts); set: exactly these, trusted wherever they resolve.
   */
  @IsOptional()
  @Matches(ALLOWED_HOSTS_PATTERN, { message: 'must be comma-separated host names or .suffixes' })
  WEB_PUSH_ALLOWED_HOSTS?: string;

  /**
   * Hosts webhooks may call although they are not public (receivers inside the operator's network):
   * comma-separated host names (IPv4 addresses included) or `.suffix`es. docs/operations.md "Security".
   */
  @IsOptional()
  @Matches(ALLOWED_HOSTS_PATTERN, { message: 'must be comma-separated host names or .suffixes' })
  WEBHOOK_ALLOWED_HOSTS?: string;

  /**
   * Web page origins allowed to call /api/ from the browser (the web SDK): `*` or a comma-separated
   * list like `https://shop.example.com`. Unset: no CORS headers (docs/api.md#tokens).
   */
  @IsOptional()
  @Matches(CORS_ORIGINS_PATTERN, { message: 'must be * or comma-separated origins like https://app.example.com (no path)' })
  CORS_ALLOWED_ORIGINS?: string;

  @Int(1, 100)
  DELIVERY_MAX_ATTEMPTS = 5;

  @Int(0)
  DELIVERY_RETRY_BASE_MS = 1000;

  @Int(0)
  DELIVERY_RETRY_MAX_MS = 300000;

  /** Installations per delivery job. */
  @Int(1, 10000)
  DELIVERY_BATCH_SIZE = 500;

  /** Provider requests in flight per delivery job. */
  @Int(1, 5000)
  DELIVERY_CONCURRENCY = 250;

  /** Delivery jobs run at once by one worker process. */
  @Int(1, 256)
  WORKER_CONCURRENCY = 8;

  /**
   * The queues a worker process takes jobs from, comma-separated; unset: every queue. Lets a
   * deployment give `deliver-small` (one-time codes) a process of its own that a campaign's
   * deliveries never keep busy (docs/operations.md "A worker process per lane"). Every queue needs
   * at least one process that runs it.
   */
  @IsOptional()
  @Matches(WORKER_QUEUES_PATTERN, { message: `must be comma-separated queue names from: ${QUEUES.join(', ')}` })
  WORKER_QUEUES?: string;

  /**
   * A transactional send to at most this many user or installation ids is a small send: the API
   * resolves it in its own transaction and queues its delivery on a queue of its own
   * (docs/api.md#small-sends); 0 sends every notification through the fan-out.
   */
  @Int(0, 100)
  SMALL_SEND_MAX_RECIPIENTS = 5;

  /** How often the sweeper looks for accepted work that no job holds. */
  @Int(100)
  SWEEP_INTERVAL_MS = 30000;

  /** A delivery left "sending" this long belonged to a worker that died: it is retried. */
  @Int(1000)
  DELIVERY_STUCK_MS = 120000;

  /**
   * Notifications completed more than this many days ago are deleted with their deliveries and
   * events (docs/api.md#data-lifecycle, docs/operations.md "Data retention"); 0 keeps everything.
   */
  @Int(0)
  RETENTION_DAYS = 30;

  /** Audit log entries older than this many days are deleted (docs/api.md#audit-log); 0 keeps them all. */
  @Int(0)
  AUDIT_LOG_RETENTION_DAYS = 365;

  /**
   * Calls of one webhook event before it is given up (docs/api.md#webhooks): 5 s after the first, then
   * each wait five times the last, so the default 8 spread over about a day.
   */
  @Int(1, 30)
  WEBHOOK_MAX_ATTEMPTS = 8;

  /** The wait before a webhook call's first retry; each next wait is five times the last. */
  @Int(0)
  WEBHOOK_FIRST_RETRY_MS = 5000;

  /** Webhook calls one worker process makes at once (each waits at most 10 s for its answer). */
  @Int(1, 1000)
  WEBHOOK_CONCURRENCY = 32;

  /** BullMQ job lock: a job of a crashed worker is taken over after about this long. */
  @Int(1000)
  QUEUE_LOCK_MS = 30000;

  @IsIn(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], {
    message: 'must be one of fatal, error, warn, info, debug, trace, silent',
  })
  LOG_LEVEL = 'info';

  /** Human-readable logs instead of JSON lines: for development only (pino-pretty is a dev dependency). */
  @Transform(toBool)
  @IsBoolean({ message: 'must be true or false' })
  LOG_PRETTY = false;

  /** Port of the Prometheus /metrics listener, separate from PORT so it need not be public; 0 turns it off. */
  @Port()
  METRICS_PORT = 9464;

  /**
   * Adds an `app` label (the app's id) to the per-lane delivery metrics (docs/operations.md
   * "Fair shares"): a series per app and lane, so off by default (cardinality).
   */
  @Transform(toBool)
  @IsBoolean({ message: 'must be true or false' })
  METRICS_APP_LABELS = false;

  /** Interface of the metrics listener; unset means every interface, like HOST (see docs/operations.md). */
  @IsOptional()
  @IsIP(undefined, { message: 'must be an IP address (0.0.0.0, ::, 127.0.0.1...)' })
  METRICS_HOST?: string;

  /** Requests per minute per API token, shared by every api process through Redis; 0 turns limiting off. */
  @Int(0)
  RATE_LIMIT_PER_MINUTE = 6000;

  /** Basic-auth user of the queue dashboard (/admin/queues); the dashboard is off unless both are set. */
  // class-validator runs the decorator nearest the property first: "is required" wins when unset.
  @ValidateIf(adminConfigured)
  @Matches(/^[^:\s]{1,64}$/, { message: 'must be 1 to 64 characters without spaces or ":"' })
  @IsString({ message: 'is required when ADMIN_PASSWORD is set' })
  ADMIN_USER?: string;

  @ValidateIf(adminConfigured)
  @MinLength(12, { message: 'must be at least 12 characters' })
  @IsString({ message: 'is required when ADMIN_USER is set' })
  ADMIN_PASSWORD?: string;

  /**
   * The address people open the service at (`https://push.example.com`, no path): what the OIDC
   * redirect URL is made of (docs/api.md#oidc). Required with ADMIN_OIDC_ISSUER.
   */
  @IsOptional()
  @Matches(PUBLIC_URL_PATTERN, { message: 'must be an http(s) origin without a path, such as https://push.example.com' })
  PUBLIC_URL?: string;

  /**
   * OIDC sign-in to the dashboard (docs/api.md#oidc): the provider's issuer (its discovery document is at
   * `<issuer>/.well-known/openid-configuration`), and this service's client at it. All three or none.
   */
  @IsOptional()
  @Matches(URL_PATTERN, { message: 'must be a URL' })
  ADMIN_OIDC_ISSUER?: string;

  @IsOptional()
  @IsString()
  ADMIN_OIDC_CLIENT_ID?: string;

  @IsOptional()
  @IsString()
  ADMIN_OIDC_CLIENT_SECRET?: string;

  /** The provider's name on the login page's button ("Sign in with <name>"); unset: the issuer's host. */
  @IsOptional()
  @Matches(/^.{1,40}$/, { message: 'must be 1 to 40 characters' })
  ADMIN_OIDC_NAME?: string;

  @Int(1000)
  SHUTDOWN_TIMEOUT_MS = 30000;

  /**
   * How long a client may take to send a request's headers, and the whole request, before it is
   * answered 408 and its connection closed (Node's defaults, 60 s and 300 s, let slow clients hold
   * connections open). docs/operations.md "Security".
   */
  @Int(100)
  HTTP_HEADERS_TIMEOUT_MS = 10000;

  @Int(100)
  HTTP_REQUEST_TIMEOUT_MS = 30000;

  /** How long one statement evaluating an audience (count, filter fan-out, dashboard browse) may run (docs/operations.md "Tenants"). */
  @Int(1)
  AUDIENCE_STATEMENT_TIMEOUT_MS = 10000;

  /** Audience statements (counts, dashboard browse) at once in an api process; unset: a quarter of DATABASE_POOL_SIZE, at least 1 (docs/operations.md "Costly audiences"). */
  @IsOptional()
  @Int(1, 1000)
  AUDIENCE_CONCURRENCY?: number;

  /** Of those, at once for one app; past either limit a request answers 429 at once. */
  @Int(1, 1000)
  AUDIENCE_CONCURRENCY_PER_APP = 2;

  /** An inbox stream's comment line comes at least this often (docs/api.md#inbox-stream). */
  @Int(100, 30000)
  INBOX_STREAM_HEARTBEAT_MS = 25000;
}

/** METRICS_PORT's default in worker mode; api and all modes keep the class default, 9464. */
export const WORKER_METRICS_PORT = 9465;

export const VARIABLES = [
  'APP_MODE',
  'PORT',
  'HOST',
  'DATABASE_URL',
  'PNS_DATA_DIR',
  'DATABASE_POOL_SIZE',
  'DATABASE_PREPARED_STATEMENTS',
  'TOKEN_CACHE',
  'METRICS_APP_LABELS',
  'DATABASE_CONNECT_TIMEOUT_MS',
  'MIGRATE_ON_START',
  'QUEUE_BACKEND',
  'REDIS_URL',
  'REDIS_CLUSTER_NODES',
  'QUEUE_PREFIX',
  'REDIS_LOG_INTERVAL_MS',
  'APP_KEY',
  'APP_KEY_PREVIOUS',
  'APNS_URL',
  'APNS_CHANNELS_URL',
  'FCM_URL',
  'GOOGLE_TOKEN_URL',
  'HMS_URL',
  'HMS_TOKEN_URL',
  'WEB_PUSH_ALLOWED_HOSTS',
  'WEBHOOK_ALLOWED_HOSTS',
  'CORS_ALLOWED_ORIGINS',
  'DELIVERY_MAX_ATTEMPTS',
  'DELIVERY_RETRY_BASE_MS',
  'DELIVERY_RETRY_MAX_MS',
  'DELIVERY_BATCH_SIZE',
  'DELIVERY_CONCURRENCY',
  'WORKER_CONCURRENCY',
  'WORKER_QUEUES',
  'SMALL_SEND_MAX_RECIPIENTS',
  'SWEEP_INTERVAL_MS',
  'DELIVERY_STUCK_MS',
  'RETENTION_DAYS',
  'AUDIT_LOG_RETENTION_DAYS',
  'WEBHOOK_MAX_ATTEMPTS',
  'WEBHOOK_FIRST_RETRY_MS',
  'WEBHOOK_CONCURRENCY',
  'QUEUE_LOCK_MS',
  'LOG_LEVEL',
  'LOG_PRETTY',
  'METRICS_PORT',
  'METRICS_HOST',
  'RATE_LIMIT_PER_MINUTE',
  'ADMIN_USER',
  'ADMIN_PASSWORD',
  'PUBLIC_URL',
  'ADMIN_OIDC_ISSUER',
  'ADMIN_OIDC_CLIENT_ID',
  'ADMIN_OIDC_CLIENT_SECRET',
  'ADMIN_OIDC_NAME',
  'SHUTDOWN_TIMEOUT_MS',
  'HTTP_HEADERS_TIMEOUT_MS',
  'INBOX_STREAM_HEARTBEAT_MS',
  'HTTP_REQUEST_TIMEOUT_MS',
  'AUDIENCE_STATEMENT_TIMEOUT_MS',
  'AUDIENCE_CONCURRENCY',
  'AUDIENCE_CONCURRENCY_PER_APP',
] as const satisfies readonly (keyof EnvironmentVariables)[];

function firstMessage(error: ValidationError): string {
  const messages = Object.values(error.constraints ?? {});
  return `${error.property} ${messages[messages.length - 1] ?? 'is invalid'}`;
}

export interface EnvOptions {
  /** false: APP_KEY may be unset (a CLI command that seals and opens nothing); it is still checked when set. */
  appKeyRequired?: boolean;
}

/** Validates `source` (normally process.env). Throws ConfigError naming the first bad variable. */
export function parseEnv(source: NodeJS.ProcessEnv, options: EnvOptions = {}): EnvironmentVariables {
  const plain: Record<string, unknown> = {};
  for (const key of VARIABLES) {
    const value = source[key];
    // An empty value means "not set", so the default applies (as in docker-compose `VAR=`).
    if (value !== undefined && value !== '') plain[key] = value;
  }
  const env = plainToInstance(EnvironmentVariables, plain);
  // An unset APP_KEY is let through only where nothing is sealed or opened (the CLI's other commands).
  const appKeyWaived = options.appKeyRequired === false && plain.APP_KEY === undefined;
  const errors = validateSync(env, { stopAtFirstError: true }).filter((error) => !(appKeyWaived && error.property === 'APP_KEY'));
  if (errors.length > 0) {
    throw new ConfigError(`Invalid environment variable ${firstMessage(errors[0])}`);
  }
  checkOidc(env);
  if (env.REDIS_CLUSTER_NODES !== undefined) {
    // BullMQ's scripts touch several keys of a queue at once, which a cluster allows only within one slot.
    if (!env.QUEUE_PREFIX.includes('{')) {
      throw new ConfigError(
        'Invalid environment variable QUEUE_PREFIX must contain a {hash tag} (e.g. {pns}) when REDIS_CLUSTER_NODES is set, so that the keys of each queue share a cluster slot',
      );
    }
    if (!/^rediss?:\/\/[^/]*\/?0?$/.test(env.REDIS_URL)) {
      throw new ConfigError(
        'Invalid environment variable REDIS_URL must not select a database when REDIS_CLUSTER_NODES is set (a cluster has only database 0)',
      );
    }
  }
  // A worker's own default, so an api and a worker on one host do not both want 9464.
  if (plain.METRICS_PORT === undefined && env.APP_MODE === 'worker') env.METRICS_PORT = WORKER_METRICS_PORT;
  return env;
}

/** OIDC sign-in (docs/api.md#oidc): its three variables together, on a dashboard that is on, with PUBLIC_URL, from an https issuer (http on loopback only). */
function checkOidc(env: EnvironmentVariables): void {
  const names = ['ADMIN_OIDC_ISSUER', 'ADMIN_OIDC_CLIENT_ID', 'ADMIN_OIDC_CLIENT_SECRET'] as const;
  const set = names.filter((name) => env[name] !== undefined);
  if (set.length === 0) return;
  const missing = names.find((name) => env[name] === undefined);
  if (missing) throw new ConfigError(`Invalid environment variable ${missing} is required when ${set[0]} is set`);
  if (env.ADMIN_USER === undefined)
    throw new ConfigError('Invalid environment variable ADMIN_USER is required when ADMIN_OIDC_ISSUER is set (OIDC signs in to the dashboard)');
  if (env.PUBLIC_URL === undefined)
    throw new ConfigError('Invalid environment variable PUBLIC_URL is required when ADMIN_OIDC_ISSUER is set (the redirect URL is made of it)');
  const issuer = new URL(env.ADMIN_OIDC_ISSUER!);
  if (issuer.protocol !== 'https:' && !(issuer.protocol === 'http:' && LOOPBACK_HOST.test(issuer.hostname))) {
    throw new ConfigError('Invalid environment variable ADMIN_OIDC_ISSUER must be an https URL (http only on loopback)');
  }
}

let cached: EnvironmentVariables | undefined;

/**
 * The validated environment, read once per process. Usable outside Nest's container (main.ts,
 * the TypeORM data source, the CLI). A `.env` file in the working directory is read first, except
 * under tests, and never overrides variables that are already set.
 */
export function env(options: EnvOptions = {}): EnvironmentVariables {
  if (!cached) {
    loadDotEnv();
    cached = parseEnv(process.env, options);
  }
  return cached;
}

export function loadDotEnv(path = resolve(process.cwd(), '.env')): void {
  if (process.env.NODE_ENV === 'test' || !existsSync(path)) return;
  const fromFile = parseDotEnv(readFileSync(path, 'utf8')).NODE_EXTRA_CA_CERTS;
  const started = process.env.NODE_EXTRA_CA_CERTS;
  process.loadEnvFile(path);
  if (fromFile && fromFile !== started) trustExtraCa(fromFile);
}

/**
 * Node reads NODE_EXTRA_CA_CERTS from the environment it starts with, never from .env: one that
 * .env gives (`pns setup --sandbox` writes the sandbox's CA there, docs/testing.md) is added to the
 * default trust here, before any TLS connection is made, also when the environment already names
 * another one (which .env does not override, and which stays trusted too).
 */
function trustExtraCa(file: string): void {
  if (!existsSync(file)) throw new ConfigError(`NODE_EXTRA_CA_CERTS: no file ${file}`);
  setDefaultCACertificates([...getCACertificates('default'), readFileSync(file, 'utf8')]);
}
