import { ConfigError, env, EnvironmentVariables } from '../config/env';

/** Below Docker's HEALTHCHECK --timeout, so the probe reports its own reason. */
const PROBE_TIMEOUT_MS = 2_000;

/** The API port, or a worker's metrics listener; undefined for a worker with METRICS_PORT=0. */
export function livenessUrl(config: Pick<EnvironmentVariables, 'APP_MODE' | 'PORT' | 'METRICS_PORT' | 'HOST' | 'METRICS_HOST'>): string | undefined {
  const worker = config.APP_MODE === 'worker';
  const port = worker ? config.METRICS_PORT : config.PORT;
  if (port === 0) return undefined;
  // A listener bound to one address answers only there; one bound to every interface, on the loopback.
  const bound = worker ? config.METRICS_HOST : config.HOST;
  const host = bound === undefined || bound === '0.0.0.0' || bound === '::' ? '127.0.0.1' : bound.includes(':') ? `[${bound}]` : bound;
  return `http://${host}:${port}/health/live`;
}

/** The container's HEALTHCHECK: 0 when this container's service answers its liveness probe, else 1 and why. */
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
