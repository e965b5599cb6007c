import { livenessUrl } from './healthcheck';

describe('livenessUrl (the image HEALTHCHECK)', () => {
  const base = { PORT: 3000, METRICS_PORT: 9465, HOST: undefined, METRICS_HOST: undefined };

  it('probes the API port on the loopback when the listener takes every interface', () => {
    expect(livenessUrl({ ...base, APP_MODE: 'api' })).toBe('http://127.0.0.1:3000/health/live');
    expect(livenessUrl({ ...base, APP_MODE: 'all', HOST: '0.0.0.0' })).toBe('http://127.0.0.1:3000/health/live');
    expect(livenessUrl({ ...base, APP_MODE: 'api', HOST: '::' })).toBe('http://127.0.0.1:3000/health/live');
  });

  it('probes the address HOST (api, all) or METRICS_HOST (worker) binds to', () => {
    expect(livenessUrl({ ...base, APP_MODE: 'api', HOST: '10.1.2.3' })).toBe('http://10.1.2.3:3000/health/live');
    expect(livenessUrl({ ...base, APP_MODE: 'worker', HOST: '10.1.2.3' })).toBe('http://127.0.0.1:9465/health/live');
    expect(livenessUrl({ ...base, APP_MODE: 'worker', METRICS_HOST: '::1' })).toBe('http://[::1]:9465/health/live');
  });

  it('has nothing to probe for a worker without a metrics listener', () => {
    expect(livenessUrl({ ...base, APP_MODE: 'worker', METRICS_PORT: 0 })).toBeUndefined();
  });
});
