import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getCACertificates, setDefaultCACertificates } from 'node:tls';
import request from 'supertest';
import { AllModule } from '../../src/app.module';
import { sandboxCredentials } from '../../src/cli/sandbox-credentials';
import { CredentialsService } from '../../src/credentials/credentials.service';
import { Sandbox, type SandboxOptions } from '../../src/sandbox/sandbox';
import { TestContext, useTestApp } from './create-test-app';
import { newApp, type TestTenant } from './factories';

export interface SandboxStack {
  ctx: TestContext;
  readonly sandbox: Sandbox;
  /** An app whose credentials are the sandbox's (what `pns setup --sandbox` stores) and its all-abilities token. */
  readonly tenant: TestTenant;
  /** supertest against the sandbox's own API (inbox, behaviours, subscriptions), by its URL. */
  sandboxApi(): ReturnType<typeof request>;
}

/**
 * For a describe block: a sandbox (docs/testing.md) in this process, with its own CA and
 * credentials in a fresh directory, and an APP_MODE=all app pointed at it by the environment the
 * sandbox prints. The sandbox's CA is trusted as NODE_EXTRA_CA_CERTS would make a spawned service
 * trust it, for this process, until the block ends.
 */
export function useAppWithSandbox(options: Omit<SandboxOptions, 'dir' | 'port'> = {}, env: Record<string, string> = {}): SandboxStack {
  let sandbox: Sandbox | undefined;
  let tenant: TestTenant | undefined;
  let dir: string | undefined;
  const trusted = getCACertificates('default');
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'pns-sandbox-'));
    sandbox = await Sandbox.start({ ...options, dir, port: 0 });
    setDefaultCACertificates([...trusted, readFileSync(sandbox.info.env.NODE_EXTRA_CA_CERTS, 'utf8')]);
  });
  const ctx = useTestApp(() => {
    const { NODE_EXTRA_CA_CERTS: _ca, APNS_CHANNELS_URL: _channels, ...providers } = sandbox!.info.env;
    return {
      module: AllModule,
      env: { ...providers, DELIVERY_RETRY_BASE_MS: '20', DELIVERY_RETRY_MAX_MS: '200', SWEEP_INTERVAL_MS: '300', ...env },
    };
  });
  beforeAll(async () => {
    tenant = await newApp(ctx, 'Sandbox');
    await ctx.get(CredentialsService).update(tenant.appId, sandboxCredentials(sandbox!.info));
  });
  afterAll(async () => {
    await sandbox?.stop();
    setDefaultCACertificates(trusted);
    if (dir) rmSync(dir, { recursive: true, force: true });
  });
  return {
    ctx,
    get sandbox() {
      if (!sandbox) throw new Error('the sandbox was used before its beforeAll started it');
      return sandbox;
    },
    get tenant() {
      if (!tenant) throw new Error('the tenant was used before its beforeAll made it');
      return tenant;
    },
    sandboxApi: () => request(sandbox!.info.url),
  };
}
