import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import pino, { DestinationStream } from 'pino';
import type { Options } from 'pino-http';
import { CENSOR, censorSecretValues, isSecretKey, redactUrl, scrubSecrets } from '../common/secrets';
import type { EnvironmentVariables } from '../config/env';

export const REQUEST_ID_HEADER = 'X-Request-Id';

/** Secret names a child logger could be bound with (`logger.child({ token })`). */
const BINDING_SECRET_KEYS = ['token', 'push_token', 'web_push_subscription', 'private_key', 'authorization', 'password', 'secret'];

/** Headers with every secret-named one (Authorization, Cookie, ...) and secret-shaped values censored. */
function censorHeaders(headers: unknown): unknown {
  if (!headers || typeof headers !== 'object') return headers;
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(headers as Record<string, unknown>)) {
    out[name] = value != null && isSecretKey(name) ? CENSOR : typeof value === 'string' ? censorSecretValues(value) : scrubSecrets(value);
  }
  return out;
}

/** The request as logged, secrets censored in headers, URL and query (docs/decisions/0007-secrets-censored-by-serializers.md). */
export function redactRequest(req: Record<string, unknown>): Record<string, unknown> {
  const out = { ...req };
  if ('headers' in out) out.headers = censorHeaders(out.headers);
  if (typeof out.url === 'string') out.url = redactUrl(out.url);
  if (out.query && typeof out.query === 'object') out.query = scrubSecrets(out.query);
  if (out.params && typeof out.params === 'object') out.params = scrubSecrets(out.params);
  return out;
}

/** pino-http's response serializer output, with Set-Cookie (and any secret-named header) censored. */
export function redactResponse(res: Record<string, unknown>): Record<string, unknown> {
  return 'headers' in res ? { ...res, headers: censorHeaders(res.headers) } : res;
}

/** The caller's X-Request-Id when it is a sane token (traceable across a proxy), else a new UUID. */
export function requestId(req: IncomingMessage, res: ServerResponse): string {
  const given = req.headers['x-request-id'];
  const id = typeof given === 'string' && /^[A-Za-z0-9._:@/+=-]{1,128}$/.test(given) ? given : randomUUID();
  res.setHeader(REQUEST_ID_HEADER, id);
  return id;
}

/** The process's pino options: JSON lines with an ISO time, secrets censored. */
export function loggerOptions(config: Pick<EnvironmentVariables, 'LOG_LEVEL'>): Options<IncomingMessage, ServerResponse> {
  return {
    level: config.LOG_LEVEL,
    timestamp: pino.stdTimeFunctions.isoTime,
    // Secret-named keys at any depth of what is logged...
    formatters: { log: (object) => scrubSecrets(object) },
    // The message and its interpolation arguments, which no formatter sees.
    hooks: {
      logMethod(args, method) {
        for (let i = 0; i < args.length; i++) if (typeof args[i] === 'string') args[i] = censorSecretValues(args[i] as string);
        return method.apply(this, args);
      },
    },
    // ...and at the top of a child logger's bindings (top-level paths: a wildcard redacts every line's keys).
    redact: { paths: BINDING_SECRET_KEYS, censor: CENSOR },
    serializers: { req: redactRequest, res: redactResponse },
  };
}

/** stdout, written asynchronously (docs/decisions/0008-asynchronous-log-destination.md); LOG_PRETTY=true uses pino-pretty when installed. */
export function logDestination(config: Pick<EnvironmentVariables, 'LOG_PRETTY'>): DestinationStream {
  if (config.LOG_PRETTY) {
    try {
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- a dev dependency, loaded only when asked for
      const pretty = require('pino-pretty') as (options: Record<string, unknown>) => DestinationStream;
      return pretty({ colorize: process.stdout.isTTY, sync: true, translateTime: 'SYS:standard' });
    } catch {
      process.stderr.write('LOG_PRETTY=true but pino-pretty is not installed (it is a dev dependency); logging JSON.\n');
    }
  }
  return pino.destination({ dest: 1, sync: false });
}
