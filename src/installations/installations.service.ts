import { Injectable } from '@nestjs/common';
import { FilterNode } from '../common/audience-filter';
import { NotFoundError, ValidationFailedError } from '../common/errors';
import { Clock } from '../common/time';
import { DEFAULT_PUSH_PROVIDER, Platform, PUSH_PROVIDERS_OF, PushProviderName, pushProviderOf, SUBSCRIPTION_PROVIDERS } from '../common/platform';
import { MAX_PROPERTIES } from '../common/validation/domain-rules';
import { ErrorBag } from '../common/validation/validation-errors';
import { RegisterInstallationDto, UpdateInstallationDto } from './dto/installation.dto';
import { InstallationResource, toInstallationResource } from './installation.resource';
import { InstallationRow, InstallationsRepository, NewInstallation } from './installations.repository';

const APNS_TOKEN = /^[0-9a-f]{64,200}$/i;

type Changes = Omit<UpdateInstallationDto, 'permission'> & { permission?: RegisterInstallationDto['permission'] };

/** Installations of one app: registration, updates, reads and deletion (docs/api.md#installations). */
@Injectable()
export class InstallationsService {
  constructor(
    private readonly installations: InstallationsRepository,
    private readonly clock: Clock,
  ) {}

  async find(appId: string, installationId: string): Promise<InstallationResource> {
    const row = await this.installations.find(appId, installationId);
    if (!row) throw new NotFoundError();
    return toInstallationResource(row);
  }

  /** A user's live installations, most recently seen first (at most `limit`). */
  async findByUser(appId: string, userId: string, limit = 20): Promise<InstallationResource[]> {
    return (await this.installations.findByUser(appId, userId, limit)).map(toInstallationResource);
  }

  /**
   * A page of the app's live installations matching `filter` (all without one), in installation_id
   * order (for the operator dashboard); `next` is the last one's id when the page is full.
   */
  async browse(
    appId: string,
    filter: FilterNode | null,
    after: string | null,
    limit: number,
  ): Promise<{ installations: InstallationResource[]; next: string | null }> {
    const rows = await this.installations.browse(appId, filter, after ?? '', limit, new Date(this.clock.now()));
    return { installations: rows.map(toInstallationResource), next: rows.length === limit ? rows[rows.length - 1].installation_id : null };
  }

  /** Live installations per app and platform (for the operator dashboard). */
  async countByApp(): Promise<Map<string, Record<Platform, number>>> {
    const counts = new Map<string, Record<Platform, number>>();
    for (const row of await this.installations.countByApp()) {
      const app = counts.get(row.app_id) ?? { ios: 0, android: 0, web: 0, huawei: 0 };
      app[row.platform] = row.count;
      counts.set(row.app_id, app);
    }
    return counts;
  }

  /** PUT: creates (created = true) or refreshes the installation. */
  async register(appId: string, installationId: string, dto: RegisterInstallationDto): Promise<{ created: boolean; installation: InstallationResource }> {
    // Two attempts cover a concurrent PUT or DELETE of the same installation between the statements.
    for (let attempt = 0; ; attempt++) {
      const channel = await this.installations.channelOf(appId, installationId);
      if (channel) {
        const { platform } = channel;
        if (dto.platform !== undefined && dto.platform !== platform) {
          throw ValidationFailedError.of('platform', `The platform field cannot be changed (the installation is ${platform}).`);
        }
        const row = await this.applyChanges(appId, installationId, channel, dto, true);
        if (row) return { created: false, installation: toInstallationResource(row) };
      } else {
        const row = await this.create(appId, installationId, dto);
        if (row) return { created: true, installation: toInstallationResource(row) };
      }
      if (attempt >= 2) throw new Error(`Installation ${installationId} kept changing during registration`);
    }
  }

  /** PATCH: at least one field; 404 when unknown. */
  async update(appId: string, installationId: string, dto: UpdateInstallationDto): Promise<InstallationResource> {
    if (Object.values(dto).every((value) => value === undefined)) {
      throw ValidationFailedError.of(
        'body',
        'The request body must contain at least one of user_id, permission, push_token, web_push_subscription, device, tags, badge, properties, live_activity_start_tokens, widget_push_token.',
      );
    }
    let channel: Channel | null = null;
    if (changesAToken(dto) || dto.push_provider !== undefined) {
      channel = await this.installations.channelOf(appId, installationId);
      if (!channel) throw new NotFoundError();
    }
    const row = await this.applyChanges(appId, installationId, channel, dto, false);
    if (row) return toInstallationResource(row);
    // No row: unknown, or the merged properties would exceed their limit (the UPDATE refuses that).
    if (dto.properties !== undefined && (await this.installations.channelOf(appId, installationId))) {
      throw ValidationFailedError.of('properties', `The properties field must not leave the installation with more than ${MAX_PROPERTIES} keys.`);
    }
    throw new NotFoundError();
  }

  /** The user of a bound installation whose push token, subscription or start tokens `dto` would change; null otherwise. */
  async boundTokenChange(appId: string, installationId: string, dto: TokenChanges): Promise<{ userId: string; field: TokenField } | null> {
    const row = await this.installations.find(appId, installationId);
    if (!row?.user_id) return null;
    const field = changedTokenField(row, dto);
    return field ? { userId: row.user_id, field } : null;
  }

  async remove(appId: string, installationId: string): Promise<void> {
    if (!(await this.installations.softDelete(appId, installationId))) throw new NotFoundError();
  }

  /** One UPDATE (see InstallationsRepository.update); `channel` is needed (and checked) only when a token or the provider is being changed. */
  private async applyChanges(
    appId: string,
    installationId: string,
    channel: Channel | null,
    dto: Changes,
    replaceProperties: boolean,
  ): Promise<InstallationRow | undefined> {
    const platform = channel?.platform ?? null;
    if (channel) throwIfInvalid(tokenErrors(channel.platform, dto, pushProviderOf(channel.platform, channel.subscribed)));
    return this.installations.update(appId, installationId, {
      setUserId: dto.user_id !== undefined,
      userId: dto.user_id ?? null,
      permission: dto.permission ?? null,
      device: dto.device ? JSON.stringify(dto.device) : null,
      pushToken: normalizeToken(platform, dto.push_token),
      webPushSubscription: dto.web_push_subscription ? JSON.stringify(subscriptionOf(dto.web_push_subscription)) : null,
      tags: dto.tags === undefined ? null : tagSet(dto.tags),
      badge: dto.badge ?? null,
      properties: dto.properties ? JSON.stringify(dto.properties) : null,
      replaceProperties,
      liveActivityStartTokens: startTokens(dto.live_activity_start_tokens),
      widgetPushToken: dto.widget_push_token?.toLowerCase() ?? null,
    });
  }

  private async create(appId: string, installationId: string, dto: RegisterInstallationDto): Promise<InstallationRow | undefined> {
    throwIfInvalid(registrationErrors(dto));
    return this.installations.create(appId, installationId, newInstallationOf(dto));
  }
}

/** What a registration must hold beyond its DTO's rules: the platform, and that platform's token (docs/api.md#register-installation). */
export function registrationErrors(dto: RegisterInstallationDto): ErrorBag {
  const errors: ErrorBag = {};
  const { platform } = dto;
  if (!platform) {
    errors.platform = ['The platform field is required when the installation is registered.'];
    return errors;
  }
  Object.assign(errors, tokenErrors(platform, dto, null));
  const provider = dto.push_provider ?? DEFAULT_PUSH_PROVIDER[platform];
  if (SUBSCRIPTION_PROVIDERS.includes(provider) && !dto.web_push_subscription) {
    errors.web_push_subscription ??= [`The web_push_subscription field is required when ${providerClause(platform, provider)}.`];
  }
  if (!SUBSCRIPTION_PROVIDERS.includes(provider) && !dto.push_token) {
    errors.push_token ??= [`The push_token field is required when ${providerClause(platform, provider)}.`];
  }
  return errors;
}

/** The stored form of a valid registration (registrationErrors empty): normalised token, sorted tags, JSON text. */
export function newInstallationOf(dto: RegisterInstallationDto): NewInstallation {
  const platform = dto.platform!;
  return {
    platform,
    pushToken: normalizeToken(platform, dto.push_token),
    webPushSubscription: dto.web_push_subscription ? JSON.stringify(subscriptionOf(dto.web_push_subscription)) : null,
    device: JSON.stringify(dto.device ?? {}),
    userId: dto.user_id ?? null,
    permission: dto.permission ?? null,
    tags: tagSet(dto.tags ?? []),
    badge: dto.badge ?? null,
    properties: JSON.stringify(dto.properties ?? {}),
    liveActivityStartTokens: startTokens(dto.live_activity_start_tokens) ?? '{}',
    widgetPushToken: dto.widget_push_token?.toLowerCase() ?? null,
  };
}

/** The stored form of a tag set (docs/api.md#recipients): sorted, without duplicates. Tags are ASCII, so code-unit order is byte order. */
export function tagSet(tags: readonly string[]): string[] {
  return [...new Set(tags)].sort();
}

/** Huawei's tokens are at most this long (docs/api.md#huawei). */
const HMS_TOKEN_MAX = 512;

/** A live installation's platform and whether it holds a subscription: what decides its provider (pushProviderOf). */
type Channel = { platform: Platform; subscribed: boolean };

/** How a message names the provider: by platform, but for Android's UnifiedPush (docs/api.md#push-provider). */
const providerClause = (platform: Platform, provider: PushProviderName) =>
  provider === DEFAULT_PUSH_PROVIDER[platform] ? `platform is ${platform}` : `push_provider is ${provider}`;

/** `stored`: the installation's provider now (null on creation); `push_provider` chooses another where its platform has two. */
function tokenErrors(platform: Platform, dto: Changes, stored: PushProviderName | null): ErrorBag {
  const errors: ErrorBag = {};
  const allowed = PUSH_PROVIDERS_OF[platform];
  if (dto.push_provider !== undefined && !allowed.includes(dto.push_provider)) {
    errors.push_provider = [`The push_provider field must be ${allowed.join(' or ')} when platform is ${platform}.`];
  }
  const provider = dto.push_provider !== undefined && allowed.includes(dto.push_provider) ? dto.push_provider : (stored ?? DEFAULT_PUSH_PROVIDER[platform]);
  const subscribed = SUBSCRIPTION_PROVIDERS.includes(provider);
  if (subscribed && dto.push_token !== undefined) {
    errors.push_token = [`The push_token field is prohibited when ${providerClause(platform, provider)}; send web_push_subscription.`];
  }
  if (!subscribed && dto.web_push_subscription !== undefined) {
    errors.web_push_subscription = [`The web_push_subscription field is prohibited when ${providerClause(platform, provider)}.`];
  }
  // Switching provider brings the new one's token.
  if (stored !== null && provider !== stored) {
    if (subscribed && dto.web_push_subscription === undefined) {
      errors.web_push_subscription ??= [`The web_push_subscription field is required when push_provider changes to ${provider}.`];
    }
    if (!subscribed && dto.push_token === undefined) errors.push_token ??= [`The push_token field is required when push_provider changes to ${provider}.`];
  }
  if (platform !== 'ios' && dto.live_activity_start_tokens !== undefined) {
    errors.live_activity_start_tokens = [`The live_activity_start_tokens field is prohibited when platform is ${platform}: Live Activities are iOS only.`];
  }
  if (platform !== 'ios' && dto.widget_push_token !== undefined) {
    errors.widget_push_token = [`The widget_push_token field is prohibited when platform is ${platform}: WidgetKit is iOS only.`];
  }
  if (platform === 'ios' && dto.push_token !== undefined && !APNS_TOKEN.test(dto.push_token)) {
    errors.push_token = ['The push_token field must be an APNs device token (64 to 200 hexadecimal characters).'];
  }
  if (platform === 'huawei' && dto.push_token !== undefined && dto.push_token.length > HMS_TOKEN_MAX) {
    errors.push_token = [`The push_token field must be a Huawei Push Kit token (1 to ${HMS_TOKEN_MAX} characters).`];
  }
  return errors;
}

type TokenChanges = Pick<Changes, 'push_token' | 'web_push_subscription' | 'live_activity_start_tokens' | 'widget_push_token'>;
type TokenField = 'push_token' | 'web_push_subscription' | 'live_activity_start_tokens' | 'widget_push_token';

/** Whether `dto` names a channel to the device: what identity verification guards on a bound installation. */
export function changesAToken(dto: TokenChanges): boolean {
  return (
    dto.push_token !== undefined ||
    dto.web_push_subscription !== undefined ||
    dto.live_activity_start_tokens !== undefined ||
    dto.widget_push_token !== undefined
  );
}

/** The first channel `dto` gives a value other than the stored one (the same token again is no change); another platform's is tokenErrors'. */
function changedTokenField(row: InstallationRow, dto: TokenChanges): TokenField | null {
  if (Object.keys(tokenErrors(row.platform, dto, pushProviderOf(row.platform, row.web_push_subscription !== null))).length > 0) return null;
  if (dto.push_token !== undefined && normalizeToken(row.platform, dto.push_token) !== row.push_token) return 'push_token';
  const web = dto.web_push_subscription && subscriptionOf(dto.web_push_subscription);
  const stored = row.web_push_subscription;
  if (web && (web.endpoint !== stored?.endpoint || web.keys.p256dh !== stored.keys.p256dh || web.keys.auth !== stored.keys.auth)) {
    return 'web_push_subscription';
  }
  const starts = dto.live_activity_start_tokens ?? {};
  if (Object.entries(starts).some(([type, token]) => row.live_activity_start_tokens[type] !== token.toLowerCase())) return 'live_activity_start_tokens';
  if (dto.widget_push_token !== undefined && dto.widget_push_token.toLowerCase() !== row.widget_push_token) return 'widget_push_token';
  return null;
}

function throwIfInvalid(errors: ErrorBag): void {
  if (Object.keys(errors).length > 0) throw new ValidationFailedError(errors);
}

/** APNs tokens are stored in lower case, so the same token sent in upper case is not a change. */
function normalizeToken(platform: Platform | null, token: string | undefined): string | null {
  if (token === undefined) return null;
  return platform === 'ios' ? token.toLowerCase() : token;
}

/** The stored form of start tokens (docs/api.md#live-activity-start-tokens): JSON text, tokens in lower case as push tokens are; null keeps them. */
function startTokens(tokens: Record<string, string> | undefined): string | null {
  if (tokens === undefined) return null;
  return JSON.stringify(Object.fromEntries(Object.entries(tokens).map(([type, token]) => [type, token.toLowerCase()])));
}

/** Only what delivery needs; `expirationTime` and unknown extras are dropped. */
function subscriptionOf(dto: NonNullable<Changes['web_push_subscription']>) {
  return { endpoint: dto.endpoint, keys: { p256dh: dto.keys.p256dh, auth: dto.keys.auth } };
}
