import { Command, CommandRunner, Option } from 'nest-commander';
import { AppsService } from '../apps/apps.service';
import { PROVIDER_CLI_NAMES, PROVIDER_IDS, type ProviderId } from '../common/vocabulary';
import { CredentialsService } from '../credentials/credentials.service';
import { CredentialsCheckService } from '../delivery/providers/credentials-check.service';
import { CliError, printJson } from './cli-error';

export function parseProviderName(value: string): ProviderId {
  const provider = PROVIDER_IDS.find((id) => PROVIDER_CLI_NAMES[id] === value);
  if (!provider) {
    const names = PROVIDER_IDS.map((id) => PROVIDER_CLI_NAMES[id]);
    throw new CliError(`--provider must be ${names.slice(0, -1).join(', ')} or ${names.at(-1)}`);
  }
  return provider;
}

/** Proves stored credentials at the endpoints delivery uses, reaching no device (docs/api.md#credentials-check). */
@Command({
  name: 'credentials:check',
  description: "Prove an app's stored APNs / FCM / Web Push / Huawei credentials without reaching a device",
})
export class CredentialsCheckCommand extends CommandRunner {
  constructor(
    private readonly apps: AppsService,
    private readonly credentials: CredentialsService,
    private readonly checks: CredentialsCheckService,
  ) {
    super();
  }

  async run(_params: string[], options: { app: string; provider?: ProviderId }): Promise<void> {
    if (!(await this.apps.find(options.app))) throw new CliError(`App ${options.app} not found`);
    const stored = await this.credentials.forDelivery(options.app);
    const results = await this.checks.check(stored, options.provider);
    if (results.length === 0) {
      const which = options.provider === undefined ? 'provider' : PROVIDER_CLI_NAMES[options.provider];
      throw new CliError(`App ${options.app} has no ${which} credentials: set them with apps:credentials`);
    }
    printJson(results);
    if (results.some((result) => !result.ok)) process.exitCode = 1;
  }

  @Option({ flags: '--app <id>', description: 'app id', required: true })
  parseApp(value: string): string {
    return value;
  }

  @Option({ flags: '--provider <provider>', description: 'only this one: apns, fcm, web-push or hms' })
  parseProvider(value: string): ProviderId {
    return parseProviderName(value);
  }
}
