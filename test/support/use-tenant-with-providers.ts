import type { TestContext } from './create-test-app';
import { newApp, TestTenant } from './factories';
import { configureProviders, FakeProviders } from './providers';

/**
 * For a describe block: an app (newApp, named `name`) whose APNs, FCM and Web Push credentials point
 * at the stack's loopback fakes, made in a beforeAll. Its fields may be read once that has run: in
 * tests and in hooks declared after this call.
 */
export function useTenantWithProviders(stack: { ctx: TestContext; readonly fakes: FakeProviders }, name?: string): TestTenant {
  let tenant: TestTenant | undefined;
  beforeAll(async () => {
    const app = await newApp(stack.ctx, name);
    await configureProviders(stack.ctx, app.appId, stack.fakes);
    tenant = app;
  });
  const made = (): TestTenant => {
    if (!tenant) throw new Error("useTenantWithProviders' app was used before its beforeAll made it");
    return tenant;
  };
  return {
    get appId() {
      return made().appId;
    },
    get token() {
      return made().token;
    },
  };
}
