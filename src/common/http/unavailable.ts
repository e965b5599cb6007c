/** Seconds a client is asked to wait (Retry-After) when a store the request needs is unreachable. */
export const RETRY_AFTER_SECONDS = 5;

/** Socket-level failures: the store is unreachable, not the request wrong. */
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'ECONNABORTED']);
/**
 * PostgreSQL SQLSTATEs of a server going away or not accepting work: class 08 (connection
 * exception), 57P01-57P03 (admin shutdown, crash shutdown, cannot connect now), 53300 (too many
 * connections).
 */
const PG_UNAVAILABLE = /^(08...|57P0[123]|53300)$/;
/** Driver messages without a code: pg's pool and client, ioredis, BullMQ. */
const MESSAGES = [
  /Connection terminated/i,
  /timeout exceeded when trying to connect/i,
  /Client has encountered a connection error/i,
  /Connection is closed/i,
  /MaxRetriesPerRequest/i,
  /Stream isn't writeable/i,
  /enableOfflineQueue/i,
  // A Redis Cluster without a reachable node, or with slots no node serves.
  /Failed to refresh slots cache/i,
  /None of startup nodes is available/i,
  /^CLUSTERDOWN/,
];

/**
 * Whether `error` (or anything in its cause chain: TypeORM's driverError, an AggregateError's
 * errors) says PostgreSQL or Redis could not be reached. Such a request gets a 503 with
 * Retry-After, never a 500 nor driver text: the client can retry, and it is not our bug.
 */
export function isStoreUnavailable(error: unknown, depth = 0): boolean {
  if (depth > 5 || typeof error !== 'object' || error === null) return false;
  const { code, message, driverError, cause, errors } = error as {
    code?: unknown;
    message?: unknown;
    driverError?: unknown;
    cause?: unknown;
    errors?: unknown;
  };
  if (typeof code === 'string' && (NETWORK_CODES.has(code) || PG_UNAVAILABLE.test(code))) return true;
  if (typeof message === 'string' && MESSAGES.some((pattern) => pattern.test(message))) return true;
  if (Array.isArray(errors) && errors.some((item) => isStoreUnavailable(item, depth + 1))) return true;
  return isStoreUnavailable(driverError, depth + 1) || isStoreUnavailable(cause, depth + 1);
}
