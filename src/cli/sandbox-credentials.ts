import { readFileSync } from 'node:fs';
import type { CredentialsInput } from '../credentials/credentials.service';
import type { SandboxInfo } from '../sandbox/sandbox';
import { CliError } from './cli-error';

/** Where `pns sandbox` answers when started without options. */
export const SANDBOX_URL = 'http://127.0.0.1:4400';

/** The environment `setup --sandbox` writes into .env: where the providers are, and the CA to trust. */
export function sandboxEnvironment(info: SandboxInfo): Map<string, string> {
  return new Map(Object.entries(info.env));
}

/** The Web Push contact `setup --sandbox` gives an app; the sandbox accepts any mailto: or https: one. */
export const SANDBOX_VAPID_SUBJECT = 'mailto:qa@example.com';

/**
 * The credentials a running sandbox accepts (docs/testing.md), as an app stores them: its APNs key
 * for its first bundle id (a development app), its FCM service account, and a VAPID subject (the
 * app's VAPID key pair is kept, or generated).
 */
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
  };
}

/** Reads what the sandbox at `url` serves (its `GET /`), or says why it cannot. */
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
