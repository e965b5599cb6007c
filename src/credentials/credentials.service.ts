import { Injectable } from '@nestjs/common';
import { AppsRepository } from '../apps/apps.repository';
import { EnvironmentVariables } from '../config/env';
import { Platform, PLATFORMS, PUSH_PROVIDER_NAMES, PushProviderName } from '../common/platform';
import { isUuid } from '../common/uuid';
import { CREDENTIALS_OF, PROVIDER_OF, ProviderId } from '../common/vocabulary';
import { APNS_COLUMNS, apnsColumns, ApnsCredentialsInput, apnsSummary, ApnsSummary, openApns } from './apns.credentials';
import { CredentialsRepository, SEALED_COLUMNS, SealedColumn, UnknownAppError } from './credentials.repository';
import { HMS_COLUMNS, hmsColumns, HmsCredentialsInput, hmsSummary, HmsSummary, openHms } from './hms.credentials';
import { FCM_COLUMNS, fcmColumns, FcmCredentialsInput, fcmSummary, FcmSummary, openFcm } from './fcm.credentials';
import { ColumnValues, CredentialsError, OpenFrom, ProviderCredentials, SealFor } from './provider-credentials';
import { appKeys, openWithAny, reseal, ResealTotals, seal } from './secret-box';
import { openWebPush, VapidCredentialsInput, WEB_PUSH_COLUMNS, webPushColumns, webPushSummary, WebPushSummary } from './web-push.credentials';

/** The one definition of "configured": a platform whose provider has credentials (a summary or the decrypted set, by provider). */
export const configuredPlatforms = (providers: Record<ProviderId, unknown>): Platform[] =>
  PLATFORMS.filter((platform) => providers[PROVIDER_OF[platform]] !== null);

/** The decrypted credentials by provider id, as configuredPlatforms reads them. */
const byProvider = (c: ProviderCredentials): Record<ProviderId, unknown> => ({ apns: c.apns, fcm: c.fcm, web_push: c.vapid, hms: c.hms });

/** The same per push provider (docs/api.md#push-provider): UnifiedPush needs the app's VAPID key pair, as Web Push does. */
export const configuredProviders = (providers: Record<ProviderId, unknown>): PushProviderName[] =>
  PUSH_PROVIDER_NAMES.filter((provider) => providers[CREDENTIALS_OF[provider]] !== null);

export const isConfigured = (credentials: ProviderCredentials, provider: PushProviderName): boolean =>
  byProvider(credentials)[CREDENTIALS_OF[provider]] !== null;

/** Workers ask per batch; credentials change rarely, and `update` invalidates its own process at once. */
const CACHE_TTL_MS = 30_000;

/** Only the providers given change; the others keep what they had. */
export interface CredentialsInput {
  apns?: ApnsCredentialsInput;
  fcm?: FcmCredentialsInput;
  vapid?: VapidCredentialsInput;
  hms?: HmsCredentialsInput;
}

export interface CredentialsSummary {
  app_id: string;
  apns: ApnsSummary | null;
  fcm: FcmSummary | null;
  web_push: WebPushSummary | null;
  hms: HmsSummary | null;
}

/** Every column of each provider, cleared together so no half-set provider is left. */
const PROVIDER_COLUMNS: Record<ProviderId, readonly string[]> = {
  apns: APNS_COLUMNS,
  fcm: FCM_COLUMNS,
  web_push: WEB_PUSH_COLUMNS,
  hms: HMS_COLUMNS,
};

/** Secrets are sealed for their row and column, so a value moved elsewhere will not open. */
const sealContext = (appId: string, column: string) => `app_credentials:${appId}:${column}`;

/** Stores each app's provider credentials with the secrets sealed under APP_KEY, and hands the decrypted set to delivery workers. */
@Injectable()
export class CredentialsService {
  private readonly cache = new Map<string, { expiresAt: number; value: Promise<ProviderCredentials> }>();

  constructor(
    private readonly credentials: CredentialsRepository,
    private readonly apps: AppsRepository,
    private readonly config: EnvironmentVariables,
  ) {}

  async update(appId: string, input: CredentialsInput): Promise<CredentialsSummary> {
    if (!isUuid(appId)) throw new CredentialsError(`App ${appId} not found`);
    const sealFor: SealFor = (column, plaintext) => seal(plaintext, sealContext(appId, column), this.config.APP_KEY);
    // Validated and sealed in this order, so the first bad input is the one reported.
    const parts = [
      input.apns && apnsColumns(input.apns, sealFor),
      input.fcm && fcmColumns(input.fcm, sealFor),
      input.vapid && webPushColumns(input.vapid, sealFor),
      input.hms && hmsColumns(input.hms, sealFor),
    ].filter((part): part is ColumnValues => Boolean(part));
    const values = new Map(parts.flatMap((part) => part.values));
    const keepExisting = new Set(parts.flatMap((part) => part.keepExisting ?? []));

    if (values.size === 0) {
      await this.assertAppExists(appId);
    } else {
      await this.upsert(appId, values, keepExisting);
      this.invalidate(appId);
    }
    return this.summary(appId);
  }

  /** Removes one provider's credentials (its installations then skip as NoCredentials); returns the new summary. */
  async remove(appId: string, provider: ProviderId): Promise<CredentialsSummary> {
    if (!isUuid(appId)) throw new CredentialsError(`App ${appId} not found`);
    await this.assertAppExists(appId);
    await this.credentials.clear(appId, PROVIDER_COLUMNS[provider]);
    this.invalidate(appId);
    return this.summary(appId);
  }

  async summary(appId: string): Promise<CredentialsSummary> {
    const row = isUuid(appId) ? await this.credentials.find(appId) : null;
    return { app_id: appId, apns: apnsSummary(row), fcm: fcmSummary(row), web_push: webPushSummary(row), hms: hmsSummary(row) };
  }

  /** The platforms the app has credentials for now, from the summary (nothing decrypted): the API sizes a send with them. */
  async platforms(appId: string): Promise<Platform[]> {
    return configuredPlatforms(await this.summary(appId));
  }

  /** The push providers it can reach, from the per-process cache of forDelivery: a small send's and the fan-out's, once per send. */
  async providersForDelivery(appId: string): Promise<PushProviderName[]> {
    return configuredProviders(byProvider(await this.forDelivery(appId)));
  }

  /** Decrypted credentials for delivery, cached per process for CACHE_TTL_MS. */
  forDelivery(appId: string): Promise<ProviderCredentials> {
    const now = Date.now();
    const cached = this.cache.get(appId);
    if (cached && cached.expiresAt > now) return cached.value;
    const value = this.load(appId);
    this.cache.set(appId, { expiresAt: now + CACHE_TTL_MS, value });
    // A failed load (database down, wrong APP_KEY) must not be served from the cache.
    value.catch(() => {
      if (this.cache.get(appId)?.value === value) this.cache.delete(appId);
    });
    return value;
  }

  invalidate(appId: string): void {
    this.cache.delete(appId);
  }

  private async load(appId: string): Promise<ProviderCredentials> {
    const row = isUuid(appId) ? await this.credentials.find(appId) : null;
    if (!row) return { appId, apns: null, fcm: null, vapid: null, hms: null };
    const open: OpenFrom = (sealed, column) => this.open(sealed, appId, column);
    return { appId, apns: openApns(row, open), fcm: openFcm(row, open), vapid: openWebPush(row, open), hms: openHms(row, open) };
  }

  private open(sealed: string, appId: string, column: SealedColumn): string {
    return openWithAny(sealed, sealContext(appId, column), appKeys(this.config)).plaintext;
  }

  /** Re-seals under APP_KEY what opens only under APP_KEY_PREVIOUS, in one transaction (docs/operations.md "Rotating APP_KEY"). */
  async rotateAppKey(): Promise<ResealTotals & { apps: number }> {
    const totals = { apps: 0, secrets: 0, resealed: 0, already_current: 0 };
    const keys = appKeys(this.config);
    await this.credentials.resealAll((row) => {
      totals.apps++;
      const changed = new Map<SealedColumn, string>();
      for (const column of SEALED_COLUMNS) {
        const sealed = row[column];
        if (sealed === null) continue;
        const unopenable = () =>
          new CredentialsError(`The ${column} of app ${row.app_id} opens under neither APP_KEY nor APP_KEY_PREVIOUS; nothing was changed`);
        const resealed = reseal(sealed, sealContext(row.app_id, column), keys, totals, unopenable);
        if (resealed !== null) changed.set(column, resealed);
      }
      return changed;
    });
    this.cache.clear();
    return totals;
  }

  private async upsert(appId: string, values: Map<string, unknown>, keepExisting: Set<string>): Promise<void> {
    try {
      await this.credentials.upsert(appId, values, keepExisting);
    } catch (error) {
      if (error instanceof UnknownAppError) throw new CredentialsError(`App ${appId} not found`);
      throw error;
    }
  }

  private async assertAppExists(appId: string): Promise<void> {
    if (!(await this.apps.exists(appId))) throw new CredentialsError(`App ${appId} not found`);
  }
}
