import { AllModule } from '../../src/app.module';
import { TestContext, useTestApp } from './create-test-app';
import { FakeProviders, startFakeProviders } from './providers';

/**
 * For a describe block: the three loopback providers, and an APP_MODE=all app (API, fan-out and
 * delivery in one process) whose provider URLs point at them, with `env` added. The fakes start before the app and
 * stop after it has closed.
 */
export function useAppWithFakeProviders(env: Record<string, string> = {}): { ctx: TestContext; readonly fakes: FakeProviders } {
  let fakes: FakeProviders | undefined;
  beforeAll(async () => {
    fakes = await startFakeProviders();
  });
  const ctx = useTestApp(() => ({ module: AllModule, env: { ...fakes!.env, ...env } }));
  afterAll(() => fakes?.stop());
  return {
    ctx,
    get fakes() {
      if (!fakes) throw new Error("useAppWithFakeProviders' fakes were used before its beforeAll started them");
      return fakes;
    },
  };
}
