import { Inject, Injectable } from '@nestjs/common';
import { PROVIDER_CLI_NAMES, PROVIDER_OF, type ProviderId } from '../../common/vocabulary';
import type { ProviderCredentials } from '../../credentials/provider-credentials';
import { PUSH_PROVIDERS, PushProvider } from './push-provider';

/** One line of the credential check (docs/api.md#credentials-check): `provider` as the CLI names it. */
export interface ProviderCheck {
  provider: string;
  ok: boolean;
  detail: string;
}

/** Proves stored credentials at the endpoints delivery uses, reaching no device: for `credentials:check` and the dashboard. */
@Injectable()
export class CredentialsCheckService {
  constructor(@Inject(PUSH_PROVIDERS) private readonly providers: PushProvider[]) {}

  /** Every configured provider's answer (only `only`'s, when given); empty when nothing asked for is configured. */
  async check(stored: ProviderCredentials, only?: ProviderId): Promise<ProviderCheck[]> {
    const wanted = this.providers.filter((provider) => only === undefined || PROVIDER_OF[provider.platform] === only);
    const configured = wanted.filter((provider) => provider.configured(stored));
    return Promise.all(
      configured.map(async (provider) => ({ provider: PROVIDER_CLI_NAMES[PROVIDER_OF[provider.platform]], ...(await provider.check(stored)) })),
    );
  }
}
