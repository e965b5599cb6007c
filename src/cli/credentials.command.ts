import { readFileSync } from 'node:fs';
import { Command, CommandRunner, Option } from 'nest-commander';
import { CredentialsInput, CredentialsService } from '../credentials/credentials.service';
import { type ProviderId } from '../common/vocabulary';
import { CredentialsError } from '../credentials/provider-credentials';
import { WebhookError } from '../webhooks/webhook-rules';
import { WebhooksService } from '../webhooks/webhooks.service';
import { AuditLog, cliActor } from '../audit/audit-log.service';
import { CliError, printJson } from './cli-error';
import { parseProviderName } from './credentials-check.command';

interface CredentialsOptions {
  app: string;
  apnsKeyFile?: string;
  apnsKeyId?: string;
  apnsTeamId?: string;
  apnsTopic?: string;
  apnsProduction?: boolean;
  fcmServiceAccountFile?: string;
  vapidSubject?: string;
  vapidPublicKey?: string;
  vapidPrivateKey?: string;
  hmsAppId?: string;
  hmsClientId?: string;
  hmsClientSecret?: string;
}

const APNS_FLAGS = [
  ['apnsKeyFile', '--apns-key-file'],
  ['apnsKeyId', '--apns-key-id'],
  ['apnsTeamId', '--apns-team-id'],
  ['apnsTopic', '--apns-topic'],
  ['apnsProduction', '--apns-production'],
] as const satisfies readonly (readonly [keyof CredentialsOptions, string])[];

const HMS_FLAGS = [
  ['hmsAppId', '--hms-app-id'],
  ['hmsClientId', '--hms-client-id'],
  ['hmsClientSecret', '--hms-client-secret'],
] as const satisfies readonly (readonly [keyof CredentialsOptions, string])[];

function readInputFile(flag: string, path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    throw new CliError(`Cannot read ${flag} ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
}

/**
 * Sets an app's provider credentials (docs/api.md#cli) and prints the secret-free summary.
 * With only --app it just prints the summary. Secrets are read from files, never from flags
 * (except a VAPID private key, which is a short string), so they stay out of shell history.
 */
@Command({
  name: 'apps:credentials',
  description: "Set an app's APNs / FCM / Web Push / Huawei credentials and print them (never the secrets)",
})
export class AppsCredentialsCommand extends CommandRunner {
  constructor(
    private readonly credentials: CredentialsService,
    private readonly audit: AuditLog,
  ) {
    super();
  }

  async run(_params: string[], options: CredentialsOptions): Promise<void> {
    const input = this.input(options);
    try {
      const summary = await this.credentials.update(options.app, input);
      const providers = Object.keys(input);
      if (providers.length > 0) await this.audit.record(cliActor(), { action: 'credentials.set', appId: options.app, details: { providers } });
      printJson(summary);
    } catch (error) {
      if (error instanceof CredentialsError) throw new CliError(error.message);
      throw error;
    }
  }

  private input(options: CredentialsOptions): CredentialsInput {
    const input: CredentialsInput = {};

    const given = APNS_FLAGS.filter(([key]) => options[key] !== undefined);
    if (given.length > 0) {
      const missing = APNS_FLAGS.filter(([key]) => options[key] === undefined).map(([, flag]) => flag);
      if (missing.length > 0) throw new CliError(`APNs credentials are incomplete: missing ${missing.join(', ')}`);
      input.apns = {
        privateKey: readInputFile('--apns-key-file', options.apnsKeyFile as string),
        keyId: options.apnsKeyId as string,
        teamId: options.apnsTeamId as string,
        topic: options.apnsTopic as string,
        production: options.apnsProduction as boolean,
      };
    }

    if (options.fcmServiceAccountFile !== undefined) {
      input.fcm = { serviceAccount: readInputFile('--fcm-service-account-file', options.fcmServiceAccountFile) };
    }

    const keyGiven = options.vapidPublicKey !== undefined || options.vapidPrivateKey !== undefined;
    if (options.vapidSubject === undefined) {
      if (keyGiven) throw new CliError('--vapid-public-key and --vapid-private-key need --vapid-subject');
    } else {
      if (keyGiven && (options.vapidPublicKey === undefined || options.vapidPrivateKey === undefined)) {
        throw new CliError(
          `Missing ${options.vapidPublicKey === undefined ? '--vapid-public-key' : '--vapid-private-key'}: give both VAPID keys or neither (to generate them)`,
        );
      }
      input.vapid = { subject: options.vapidSubject, publicKey: options.vapidPublicKey, privateKey: options.vapidPrivateKey };
    }

    const hmsGiven = HMS_FLAGS.filter(([key]) => options[key] !== undefined);
    if (hmsGiven.length > 0) {
      const missing = HMS_FLAGS.filter(([key]) => options[key] === undefined).map(([, flag]) => flag);
      if (missing.length > 0) throw new CliError(`Huawei credentials are incomplete: missing ${missing.join(', ')}`);
      input.hms = { appId: options.hmsAppId!, clientId: options.hmsClientId!, clientSecret: options.hmsClientSecret! };
    }
    return input;
  }

  @Option({ flags: '--app <id>', description: 'app id', required: true })
  parseApp(value: string): string {
    return value;
  }

  @Option({ flags: '--apns-key-file <path>', description: 'APNs auth key (.p8 file from Apple Developer > Keys)' })
  parseApnsKeyFile(value: string): string {
    return value;
  }

  @Option({ flags: '--apns-key-id <id>', description: 'the 10-character Key ID of that key' })
  parseApnsKeyId(value: string): string {
    return value;
  }

  @Option({ flags: '--apns-team-id <id>', description: 'your 10-character Apple Team ID' })
  parseApnsTeamId(value: string): string {
    return value;
  }

  @Option({ flags: '--apns-topic <bundle-id>', description: "the iOS app's bundle id" })
  parseApnsTopic(value: string): string {
    return value;
  }

  @Option({ flags: '--apns-production <true|false>', description: 'production APNs (true) or sandbox (false)' })
  parseApnsProduction(value: string): boolean {
    if (value === 'true') return true;
    if (value === 'false') return false;
    throw new CliError('--apns-production must be true or false');
  }

  @Option({ flags: '--fcm-service-account-file <path>', description: 'Firebase service-account JSON key file' })
  parseFcmServiceAccountFile(value: string): string {
    return value;
  }

  @Option({ flags: '--vapid-subject <uri>', description: 'mailto: or https: contact for Web Push services' })
  parseVapidSubject(value: string): string {
    return value;
  }

  @Option({ flags: '--vapid-public-key <key>', description: 'existing VAPID public key (base64url); generated when omitted' })
  parseVapidPublicKey(value: string): string {
    return value;
  }

  @Option({ flags: '--vapid-private-key <key>', description: 'existing VAPID private key (base64url)' })
  parseVapidPrivateKey(value: string): string {
    return value;
  }

  @Option({ flags: '--hms-app-id <id>', description: 'Huawei: the app id (AppGallery Connect > Project settings)' })
  parseHmsAppId(value: string): string {
    return value;
  }

  @Option({ flags: '--hms-client-id <id>', description: "Huawei: the OAuth 2.0 client id of the app's project" })
  parseHmsClientId(value: string): string {
    return value;
  }

  @Option({ flags: '--hms-client-secret <secret>', description: "Huawei: that client's secret (sealed when stored)" })
  parseHmsClientSecret(value: string): string {
    return value;
  }
}

/** Later sends skip the platform as NoCredentials (workers see it within 30 s); a new VAPID pair means every browser resubscribes. */
@Command({ name: 'apps:credentials:remove', description: "Remove one provider's credentials of an app (apns, fcm, web-push or hms)" })
export class AppsCredentialsRemoveCommand extends CommandRunner {
  constructor(
    private readonly credentials: CredentialsService,
    private readonly audit: AuditLog,
  ) {
    super();
  }

  async run(_params: string[], options: { app: string; provider: ProviderId }): Promise<void> {
    try {
      const summary = await this.credentials.remove(options.app, options.provider);
      await this.audit.record(cliActor(), { action: 'credentials.remove', appId: options.app, target: options.provider });
      printJson(summary);
    } catch (error) {
      if (error instanceof CredentialsError) throw new CliError(error.message);
      throw error;
    }
  }

  @Option({ flags: '--app <id>', description: 'app id', required: true })
  parseApp(value: string): string {
    return value;
  }

  @Option({ flags: '--provider <provider>', description: 'apns, fcm, web-push or hms', required: true })
  parseProvider(value: string): ProviderId {
    return parseProviderName(value);
  }
}

/**
 * Re-seals every stored secret under APP_KEY, opening those that need it with APP_KEY_PREVIOUS
 * (docs/operations.md "Rotating APP_KEY"). One transaction; running it again changes nothing.
 */
@Command({ name: 'app-key:rotate', description: 'Re-seal every stored secret under APP_KEY (the old key in APP_KEY_PREVIOUS)' })
export class AppKeyRotateCommand extends CommandRunner {
  constructor(
    private readonly credentials: CredentialsService,
    private readonly webhooks: WebhooksService,
    private readonly audit: AuditLog,
  ) {
    super();
  }

  /**
   * Provider secrets, then webhook signing secrets (docs/api.md#webhooks), each in its own transaction;
   * the counts add both. Should the second fail, running the command again finishes it.
   */
  async run(): Promise<void> {
    try {
      const totals = await this.credentials.rotateAppKey();
      const webhooks = await this.webhooks.rotateAppKey();
      await this.audit.record(cliActor(), { action: 'app_key.rotate', details: { resealed: totals.resealed + webhooks.resealed } });
      printJson({
        apps: totals.apps,
        secrets: totals.secrets + webhooks.secrets,
        resealed: totals.resealed + webhooks.resealed,
        already_current: totals.already_current + webhooks.already_current,
      });
    } catch (error) {
      if (error instanceof CredentialsError || error instanceof WebhookError) throw new CliError(error.message);
      throw error;
    }
  }
}
