import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import pino, { DestinationStream, LevelWithSilent } from 'pino';
import type { Options } from 'pino-http';
import type { AuthContext } from '../auth/auth-context';
import type { EnvironmentVariables } from '../config/env';

export const REQUEST_ID_HEADER = 'X-Request-Id';
export const CENSOR = '[Redacted]';

/**
 * Exact paths pino redacts before serializing. They cover the request line (headers) and the
 * shapes our own code would log (an installation body, a credentials object); SECRET_KEY below
 * catches the same names at any depth in objects passed to a log call.
 */
export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers["proxy-authorization"]',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
  'req.body.push_token',
  'req.body.web_push_subscription',
  'body.push_token',
  'body.web_push_subscription',
  'push_token',
  'web_push_subscription',
  '*.push_token',
  '*.web_push_subscription',
  'token',
  '*.token',
  'private_key',
  '*.private_key',
  '*.*.private_key',
];

/**
 * Key names whose values never reach a log line, wherever they sit: bearer tokens, device push
 * tokens and subscriptions, provider private keys (APNs .p8, FCM service account, VAPID),
 * passwords and the APP_KEY. `tokenId`/`token_id` stay: they identify a token without revealing it.
 */
const SECRET_KEY =
  /^(authorization|proxy-authorization|cookie|set-cookie|token|app_key|appkey)$|password|passphrase|secret|private_?key|push_?token|web_?push_?subscription|access_?token|refresh_?token|api_?key/i;
const MAX_DEPTH = 8;

export function isSecretKey(key: string): boolean {
  return SECRET_KEY.test(key);
}

/**
 * A copy of `value` with every secret-named key censored. Only plain objects and arrays are
 * walked: class instances (errors, requests, buffers) have their own serializers.
 */
export function scrubSecrets<T>(value: T, depth = 0): T {
  if (depth > MAX_DEPTH || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((item) => scrubSecrets(item, depth + 1)) as T;
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
    out[key] = isSecretKey(key) && item !== null && item !== undefined ? CENSOR : scrubSecrets(item, depth + 1);
  }
  return out as T;
}

/**
 * `url` with the value of every secret-named query parameter (`access_token`, `token`, `api_key`...)
 * censored. Such tokens are refused (only the Authorization header authenticates), but a caller
 * who sent one must not find it in the logs either.
 */
export function redactUrl(url: string): string {
  const query = url.indexOf('?');
  if (query === -1) return url;
  return (
    url.slice(0, query) +
    url.slice(query).replace(/([?&;])([^=&;#]*)=([^&;#]*)/g, (whole, separator: string, name: string) => {
      let decoded = name;
      try {
        decoded = decodeURIComponent(name.replace(/\+/g, ' '));
      } catch {
        // an undecodable name is checked as it is
      }
      // `a[access_token]` is how qs-style parsers nest a key.
      const key = /\[([^\]]*)\]$/.exec(decoded)?.[1] ?? decoded;
      return isSecretKey(key) || isSecretKey(decoded) ? `${separator}${name}=${CENSOR}` : whole;
    })
  );
}

/** pino-http's request serializer output, with secrets taken out of the URL and the parsed query. */
export function redactRequest(req: Record<string, unknown>): Record<string, unknown> {
  const out = { ...req };
  if (typeof out.url === 'string') out.url = redactUrl(out.url);
  if (out.query && typeof out.query === 'object') out.query = scrubSecrets(out.query);
  return out;
}

/**
 * The request id: the caller's X-Request-Id when it is a sane token (so ids can be traced across
 * a proxy), otherwise a new UUID. Returned in the response header either way.
 */
export function requestId(req: IncomingMessage, res: ServerResponse): string {
  const given = req.headers['x-request-id'];
  const id = typeof given === 'string' && /^[A-Za-z0-9._:@\/+=-]{1,128}$/.test(given) ? given : randomUUID();
  res.setHeader(REQUEST_ID_HEADER, id);
  return id;
}

type AuthenticatedRequest = IncomingMessage & { user?: AuthContext };

function callerOf(req: IncomingMessage): { token_id?: string; app_id?: string } {
  const user = (req as AuthenticatedRequest).user;
  return user ? { token_id: user.tokenId, app_id: user.appId } : {};
}

/** pino-http options: JSON lines, request id on every line, caller identity, secrets censored. */
export function pinoHttpOptions(config: Pick<EnvironmentVariables, 'LOG_LEVEL'>): Options<IncomingMessage, ServerResponse> {
  return {
    level: config.LOG_LEVEL,
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: { paths: REDACT_PATHS, censor: CENSOR },
    formatters: { log: (object) => scrubSecrets(object) },
    serializers: { req: redactRequest },
    genReqId: requestId,
    // Lines logged while handling a request carry only its id; the final line has the details.
    quietReqLogger: true,
    customAttributeKeys: { reqId: 'request_id' },
    // Added to the final line only, once the guard has authenticated the caller. (customProps
    // would do the same through two extra child loggers per request, each serialized anew.)
    customSuccessObject: (req, _res, value) => ({ ...value, ...callerOf(req) }),
    customErrorObject: (req, _res, _error, value) => ({ ...value, ...callerOf(req) }),
    customLogLevel: (_req, res, error): LevelWithSilent => (error || res.statusCode >= 500 ? 'error' : 'info'),
    // Probes hit these every few seconds; their lines would drown everything else.
    autoLogging: { ignore: (req) => (req.url ?? '').startsWith('/health/') },
  };
}

/**
 * Where log lines go: stdout as JSON lines. Written asynchronously: a synchronous write is one
 * syscall per line on the event loop (about 4% of the api's CPU under load, one line per
 * request), while the asynchronous stream batches the lines that arrive during a write. pino
 * flushes it synchronously on process exit (process.exit(), an uncaught exception), so those
 * last lines are still written; only a hard kill (SIGKILL, OOM) can lose the few lines of the
 * write in flight. LOG_PRETTY=true swaps in pino-pretty, a development
 * dependency: when it is not installed (the production image) the JSON output stays.
 */
export function logDestination(config: Pick<EnvironmentVariables, 'LOG_PRETTY'>): DestinationStream {
  if (config.LOG_PRETTY) {
    try {
      // Required lazily so the production image, which lacks it, still starts.
      const pretty = require('pino-pretty') as (options: Record<string, unknown>) => DestinationStream;
      return pretty({ colorize: process.stdout.isTTY, sync: true, translateTime: 'SYS:standard' });
    } catch {
      process.stderr.write('LOG_PRETTY=true but pino-pretty is not installed (it is a dev dependency); logging JSON.\n');
    }
  }
  return pino.destination({ dest: 1, sync: false });
}
