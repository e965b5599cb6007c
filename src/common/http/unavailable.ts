export const RETRY_AFTER_SECONDS = 5;

const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'ECONNABORTED']);
/** SQLSTATEs of a server going away or refusing work: class 08, 57P01-57P03, 53300. */
const PG_UNAVAILABLE = /^(08...|57P0[123]|53300)$/;
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

/** Whether `error` or its cause chain says PostgreSQL or Redis is unreachable: a 503 with Retry-After, not a 500. */
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
