import { Injectable } from '@nestjs/common';
import { AppsService } from '../../apps/apps.service';
import { TokensService } from '../../auth/tokens.service';
import { NotFoundError, ValidationFailedError } from '../../common/errors';
import { PROVIDER_CLI_NAMES, PROVIDER_IDS, type ProviderId } from '../../common/vocabulary';
import { CredentialsInput, CredentialsService } from '../../credentials/credentials.service';
import { CredentialsError } from '../../credentials/provider-credentials';
import { CredentialsCheckService } from '../../delivery/providers/credentials-check.service';
import { WebhookError } from '../../webhooks/webhook-rules';
import { WebhooksService } from '../../webhooks/webhooks.service';
import type { CreateTokenDto, PatchSettingsDto } from './dto/apps-console.dto';

/** The provider a path or body names (`apns`, `fcm`, `web-push`, `hms`), as the CLI names them. */
export function providerNamed(name: string): ProviderId | null {
  return PROVIDER_IDS.find((id) => PROVIDER_CLI_NAMES[id] === name) ?? null;
}

/** A service's refusal as the dashboard answers it: an unknown app 404, a bad input 422 on `field`. */
function refused(error: unknown, field: string): never {
  if ((error instanceof CredentialsError || error instanceof WebhookError) && / not found$/.test(error.message)) throw new NotFoundError();
  if (error instanceof CredentialsError || error instanceof WebhookError) throw ValidationFailedError.of(field, error.message.replace(/--([a-z-]+)/g, '$1'));
  throw error;
}

/**
 * What owners manage of an app in the dashboard (docs/api.md#apps-and-credentials-in-the-dashboard),
 * through the services the CLI uses: apps, credentials (and their check), tokens, webhooks, settings.
 * Nothing it answers holds a stored secret.
 */
@Injectable()
export class AppsConsoleService {
  constructor(
    private readonly apps: AppsService,
    private readonly credentials: CredentialsService,
    private readonly checks: CredentialsCheckService,
    private readonly tokens: TokensService,
    private readonly webhooks: WebhooksService,
  ) {}

  createApp(name: string) {
    return this.apps.create(name.trim());
  }

  private async existing(appId: string): Promise<void> {
    if (!(await this.apps.find(appId))) throw new NotFoundError();
  }

  async credentialsOf(appId: string) {
    await this.existing(appId);
    return this.credentials.summary(appId);
  }

  async setCredentials(appId: string, input: CredentialsInput, field: string) {
    await this.existing(appId);
    return this.credentials.update(appId, input).catch((error: unknown) => refused(error, field));
  }

  async removeCredentials(appId: string, provider: ProviderId) {
    await this.existing(appId);
    return this.credentials.remove(appId, provider).catch((error: unknown) => refused(error, 'provider'));
  }

  /** As `credentials:check`; 422 when the app has none of what was asked. */
  async check(appId: string, only: ProviderId | undefined) {
    await this.existing(appId);
    const results = await this.checks.check(await this.credentials.forDelivery(appId), only);
    if (results.length === 0) {
      throw ValidationFailedError.of('provider', `The app has no ${only ? PROVIDER_CLI_NAMES[only] : 'provider'} credentials to check.`);
    }
    return results;
  }

  async tokensOf(appId: string) {
    await this.existing(appId);
    return this.tokens.list(appId);
  }

  async createToken(appId: string, dto: CreateTokenDto) {
    await this.existing(appId);
    return this.tokens.create({ appId, abilities: [...new Set(dto.abilities)], name: dto.name ?? null, expiresInDays: dto.expires_in_days ?? undefined });
  }

  /** Only a token of this app; revoking twice keeps the first time. */
  async revokeToken(appId: string, tokenId: string) {
    if (!(await this.tokensOf(appId)).some((token) => token.id === tokenId)) throw new NotFoundError();
    return (await this.tokens.revoke(tokenId))!;
  }

  async webhooksOf(appId: string) {
    await this.existing(appId);
    return this.webhooks.list(appId);
  }

  createWebhook(appId: string, url: string, events: string[]) {
    return this.webhooks.create(appId, url, events.join(',')).catch((error: unknown) => refused(error, /event/i.test(String(error)) ? 'events' : 'url'));
  }

  /** Only a webhook of this app; the messages still owed to it go with it. */
  async deleteWebhook(appId: string, webhookId: string) {
    if (!(await this.webhooksOf(appId)).some((webhook) => webhook.id === webhookId)) throw new NotFoundError();
    return this.webhooks.delete(webhookId);
  }

  async settings(appId: string) {
    const app = await this.apps.settings(appId);
    if (!app) throw new NotFoundError();
    return app;
  }

  async updateSettings(appId: string, dto: PatchSettingsDto) {
    if (dto.quiet_hours && dto.quiet_hours.start === dto.quiet_hours.end) {
      throw ValidationFailedError.of('quiet_hours.end', 'The quiet hours must end at another time than they start.');
    }
    const app = await this.apps.updateSettings(appId, {
      frequency_cap: dto.frequency_cap === undefined ? undefined : dto.frequency_cap && { max: dto.frequency_cap.max, hours: dto.frequency_cap.hours },
      quiet_hours: dto.quiet_hours === undefined ? undefined : dto.quiet_hours && { start: dto.quiet_hours.start, end: dto.quiet_hours.end },
      identity_verification: dto.identity_verification,
      inbox_days: dto.inbox_days,
    });
    if (!app) throw new NotFoundError();
    return app;
  }
}
