import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import pino, { DestinationStream, LevelWithSilent } from 'pino';
import type { Options } from 'pino-http';
import type { AuthContext } from '../auth/auth-context';
import { CENSOR, isSecretKey, redactUrl, scrubSecrets } from '../common/secrets';
import type { EnvironmentVariables } from '../config/env';

export const REQUEST_ID_HEADER = 'X-Request-Id';

/** Secret names a child logger could be bound with (`logger.child({ token })`). */
const BINDING_SECRET_KEYS = ['token', 'push_token', 'web_push_subscription', 'private_key', 'authorization', 'password', 'secret'];

/**
 * A header object with the value of every secret-named header (Authorization, Cookie,
 * Proxy-Authorization, Set-Cookie, ...) censored.
 */
function censorHeaders(headers: unknown): unknown {
  if (!headers || typeof headers !== 'object') return headers;
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(headers as Record<string, unknown>)) {
    out[name] = value != null && isSecretKey(name) ? CENSOR : value;
  }
  return out;
}

/**
 * pino-http's request serializer output, with secret headers censored and secrets taken out of the
 * URL and the parsed query. Secrets are censored here, in the serializers, and by scrubSecrets for
 * everything else logged, rather than by pino's `redact` paths, which clone and walk every line
 * (docs/decisions/0007-secrets-censored-by-serializers.md).
 */
export function redactRequest(req: Record<string, unknown>): Record<string, unknown> {
  const out = { ...req };
  if ('headers' in out) out.headers = censorHeaders(out.headers);
  if (typeof out.url === 'string') out.url = redactUrl(out.url);
  if (out.query && typeof out.query === 'object') out.query = scrubSecrets(out.query);
  return out;
}

/** pino-http's response serializer output, with Set-Cookie (and any secret-named header) censored. */
export function redactResponse(res: Record<string, unknown>): Record<string, unknown> {
  return 'headers' in res ? { ...res, headers: censorHeaders(res.headers) } : res;
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
    // Secret-named keys at any depth of what is logged...
    formatters: { log: (object) => scrubSecrets(object) },
    // ...and at the top of a child logger's bindings, which pino passes through no formatter.
    // Top-level paths only: a wildcard path would make pino redact every key of every line.
    redact: { paths: BINDING_SECRET_KEYS, censor: CENSOR },
    serializers: { req: redactRequest, res: redactResponse },
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
 * syscall per line on the event loop, while the asynchronous stream batches the lines that arrive
 * during a write (docs/decisions/0008-asynchronous-log-destination.md). pino
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
