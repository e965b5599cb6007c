import { ApiModule } from '../../src/app.module';
import { TestContext, useTestApp } from './create-test-app';
import { assertBuilt, ChildEnv, killAllServices, serviceEnv } from './processes';
import { FakeProviders, startFakeProviders } from './providers';

/**
 * For a describe block whose tests spawn the built service (`dist/`, e.g. an APP_MODE=worker) beside
 * an APP_MODE=api app in this process: the three loopback providers, and the app with their URLs and
 * `env()`. The afterAll kills every spawned service first, as they use the app's database, then the
 * app closes, then the fakes stop (Jest runs hooks in the order they are declared).
 */
export function useApiWithFakeProviders(env: () => Record<string, string> = () => ({})): { ctx: TestContext; readonly fakes: FakeProviders } {
  let fakes: FakeProviders | undefined;
  beforeAll(async () => {
    assertBuilt();
    fakes = await startFakeProviders();
  });
  afterAll(() => killAllServices());
  const ctx = useTestApp(() => ({ module: ApiModule, env: { ...fakes!.env, ...env() } }));
  afterAll(() => fakes?.stop());
  return {
    ctx,
    get fakes() {
      if (!fakes) throw new Error("useApiWithFakeProviders' fakes were used before its beforeAll started them");
      return fakes;
    },
  };
}

/**
 * The environment of a built APP_MODE=worker on the app's database and queue prefix, delivering to the
 * fakes (trusting their CA) and logging at info; `extra` on top.
 */
export function fakeProvidersWorkerEnv(ctx: TestContext, fakes: FakeProviders, extra: ChildEnv = {}): ChildEnv {
  return serviceEnv(ctx, {
    ...fakes.env,
    APP_MODE: 'worker',
    NODE_EXTRA_CA_CERTS: process.env.NODE_EXTRA_CA_CERTS ?? `${__dirname}/../fakes/certs/ca.pem`,
    LOG_LEVEL: 'info',
    ...extra,
  });
}
