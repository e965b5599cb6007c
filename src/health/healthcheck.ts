import { ConfigError, env, EnvironmentVariables } from '../config/env';

/** Below Docker's HEALTHCHECK --timeout, so the probe reports its own reason rather than being killed. */
const PROBE_TIMEOUT_MS = 2_000;

/**
 * Which /health/live this process answers: the API port in api/all mode; in worker mode, which
 * has no HTTP server, the metrics listener (it serves /health/live too). Undefined when a worker
 * runs with METRICS_PORT=0 and so has nothing to probe.
 */
export function livenessUrl(config: Pick<EnvironmentVariables, 'APP_MODE' | 'PORT' | 'METRICS_PORT' | 'HOST' | 'METRICS_HOST'>): string | undefined {
  const worker = config.APP_MODE === 'worker';
  const port = worker ? config.METRICS_PORT : config.PORT;
  if (port === 0) return undefined;
  // A listener bound to one address (HOST, METRICS_HOST) answers only there; one bound to every
  // interface answers on the loopback.
  const bound = worker ? config.METRICS_HOST : config.HOST;
  const host = bound === undefined || bound === '0.0.0.0' || bound === '::' ? '127.0.0.1' : bound.includes(':') ? `[${bound}]` : bound;
  return `http://${host}:${port}/health/live`;
}

/**
 * The container's HEALTHCHECK (`node dist/src/health/healthcheck.js`): exits 0 when the service in
 * this container answers its liveness probe, 1 otherwise, with one line saying why. It reads the
 * same environment as the service, so it probes the ports the service was told to use.
 */
async function main(): Promise<number> {
  let config: EnvironmentVariables;
  try {
    config = env();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      return 1;
    }
    throw error;
  }
  const url = livenessUrl(config);
  if (!url) {
    process.stdout.write('worker with METRICS_PORT=0: no listener to probe\n');
    return 0;
  }
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) });
    if (res.ok) return 0;
    process.stderr.write(`${url} answered ${res.status}\n`);
  } catch (error) {
    const cause = (error as Error & { cause?: { code?: string } }).cause?.code ?? (error as Error).message;
    process.stderr.write(`${url} did not answer: ${cause}\n`);
  }
  return 1;
}

if (require.main === module) {
  void main().then((code) => process.exit(code));
}
