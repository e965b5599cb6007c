import { readFileSync } from 'node:fs';
import type { CredentialsInput } from '../credentials/credentials.service';
import type { SandboxInfo } from '../sandbox/sandbox';
import { CliError } from './cli-error';

export const SANDBOX_URL = 'http://127.0.0.1:4400';

export function sandboxEnvironment(info: SandboxInfo): Map<string, string> {
  return new Map(Object.entries(info.env));
}

/** The sandbox accepts any mailto: or https: subject. */
export const SANDBOX_VAPID_SUBJECT = 'mailto:qa@example.com';

/** What a running sandbox accepts (docs/testing.md), as an app stores it; the app's VAPID pair is kept or generated. */
export function sandboxCredentials(info: SandboxInfo): CredentialsInput {
  return {
    apns: {
      privateKey: readFileSync(info.apns.key_file, 'utf8'),
      keyId: info.apns.key_id,
      teamId: info.apns.team_id,
      topic: info.apns.topics[0],
      production: false,
    },
    fcm: { serviceAccount: readFileSync(info.fcm.service_account_file, 'utf8') },
    vapid: { subject: SANDBOX_VAPID_SUBJECT },
    hms: { appId: info.hms.app_id, clientId: info.hms.client_id, clientSecret: info.hms.client_secret },
  };
}

export async function fetchSandboxInfo(url: string): Promise<SandboxInfo> {
  let response: Response;
  try {
    response = await fetch(new URL('/', url), { signal: AbortSignal.timeout(5000) });
  } catch (error) {
    throw new CliError(`No sandbox answers at ${url} (${(error as Error).message}); start one with \`pns sandbox\``);
  }
  const info = (await response.json().catch(() => undefined)) as SandboxInfo | undefined;
  if (!response.ok || !info?.env || !info.apns || !info.fcm) throw new CliError(`${url} is not a pns sandbox (GET / answered ${response.status})`);
  return info;
}
