import { Injectable } from '@nestjs/common';
import { FilterNode } from '../common/audience-filter';
import { NotFoundError, ValidationFailedError } from '../common/errors';
import { Clock } from '../common/time';
import { Platform } from '../common/platform';
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
      const platform = await this.installations.platformOf(appId, installationId);
      if (platform) {
        if (dto.platform !== undefined && dto.platform !== platform) {
          throw ValidationFailedError.of('platform', `The platform field cannot be changed (the installation is ${platform}).`);
        }
        const row = await this.applyChanges(appId, installationId, platform, dto, true);
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
        'The request body must contain at least one of user_id, permission, push_token, web_push_subscription, device, tags, badge, properties, live_activity_start_tokens.',
      );
    }
    let platform: Platform | null = null;
    if (dto.push_token !== undefined || dto.web_push_subscription !== undefined || dto.live_activity_start_tokens !== undefined) {
      platform = await this.installations.platformOf(appId, installationId);
      if (!platform) throw new NotFoundError();
    }
    const row = await this.applyChanges(appId, installationId, platform, dto, false);
    if (row) return toInstallationResource(row);
    // No row: unknown, or the merged properties would exceed their limit (the UPDATE refuses that).
    if (dto.properties !== undefined && (await this.installations.platformOf(appId, installationId))) {
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

  /** One UPDATE (see InstallationsRepository.update); `platform` is needed (and checked) only when a token is being changed. */
  private async applyChanges(
    appId: string,
    installationId: string,
    platform: Platform | null,
    dto: Changes,
    replaceProperties: boolean,
  ): Promise<InstallationRow | undefined> {
    if (platform) throwIfInvalid(tokenErrors(platform, dto));
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
  Object.assign(errors, tokenErrors(platform, dto));
  if (platform === 'web' && !dto.web_push_subscription) {
    errors.web_push_subscription ??= ['The web_push_subscription field is required when platform is web.'];
  }
  if (platform !== 'web' && !dto.push_token) {
    errors.push_token ??= [`The push_token field is required when platform is ${platform}.`];
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
  };
}

/** The stored form of a tag set (docs/api.md#recipients): sorted, without duplicates. Tags are ASCII, so code-unit order is byte order. */
export function tagSet(tags: readonly string[]): string[] {
  return [...new Set(tags)].sort();
}

/** Huawei's tokens are at most this long (docs/api.md#huawei). */
const HMS_TOKEN_MAX = 512;

function tokenErrors(platform: Platform, dto: Changes): ErrorBag {
  const errors: ErrorBag = {};
  if (platform === 'web' && dto.push_token !== undefined) {
    errors.push_token = ['The push_token field is prohibited when platform is web; send web_push_subscription.'];
  }
  if (platform !== 'web' && dto.web_push_subscription !== undefined) {
    errors.web_push_subscription = [`The web_push_subscription field is prohibited when platform is ${platform}.`];
  }
  if (platform !== 'ios' && dto.live_activity_start_tokens !== undefined) {
    errors.live_activity_start_tokens = [`The live_activity_start_tokens field is prohibited when platform is ${platform}: Live Activities are iOS only.`];
  }
  if (platform === 'ios' && dto.push_token !== undefined && !APNS_TOKEN.test(dto.push_token)) {
    errors.push_token = ['The push_token field must be an APNs device token (64 to 200 hexadecimal characters).'];
  }
  if (platform === 'huawei' && dto.push_token !== undefined && dto.push_token.length > HMS_TOKEN_MAX) {
    errors.push_token = [`The push_token field must be a Huawei Push Kit token (1 to ${HMS_TOKEN_MAX} characters).`];
  }
  return errors;
}

type TokenChanges = Pick<Changes, 'push_token' | 'web_push_subscription' | 'live_activity_start_tokens'>;
type TokenField = 'push_token' | 'web_push_subscription' | 'live_activity_start_tokens';

/** Whether `dto` names a channel to the device: what identity verification guards on a bound installation. */
export function changesAToken(dto: TokenChanges): boolean {
  return dto.push_token !== undefined || dto.web_push_subscription !== undefined || dto.live_activity_start_tokens !== undefined;
}

/** The first channel `dto` gives a value other than the stored one (the same token again is no change); another platform's is tokenErrors'. */
function changedTokenField(row: InstallationRow, dto: TokenChanges): TokenField | null {
  if (Object.keys(tokenErrors(row.platform, dto)).length > 0) return null;
  if (dto.push_token !== undefined && normalizeToken(row.platform, dto.push_token) !== row.push_token) return 'push_token';
  const web = dto.web_push_subscription && subscriptionOf(dto.web_push_subscription);
  const stored = row.web_push_subscription;
  if (web && (web.endpoint !== stored?.endpoint || web.keys.p256dh !== stored.keys.p256dh || web.keys.auth !== stored.keys.auth)) {
    return 'web_push_subscription';
  }
  const starts = dto.live_activity_start_tokens ?? {};
  if (Object.entries(starts).some(([type, token]) => row.live_activity_start_tokens[type] !== token.toLowerCase())) return 'live_activity_start_tokens';
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
