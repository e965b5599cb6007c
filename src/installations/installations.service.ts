import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { NotFoundError, ValidationFailedError } from '../common/errors';
import { preparedQuery } from '../common/prepared-query';
import { ErrorBag } from '../common/validation/validation-errors';
import { RegisterInstallationDto, UpdateInstallationDto } from './dto/installation.dto';
import { Platform } from './installation.entity';
import { INSTALLATION_COLUMNS, InstallationResource, InstallationRow, toInstallationResource } from './installation.resource';

const APNS_TOKEN = /^[0-9a-f]{64,200}$/i;

type Changes = Omit<UpdateInstallationDto, 'permission'> & { permission?: RegisterInstallationDto['permission'] };

/**
 * Applies a partial change in one statement, so a PATCH is one round trip. The timestamps move
 * only when their value really changes (docs/api.md 4.3); a new token revives an invalidated row.
 */
const UPDATE_SQL = `
  UPDATE installations SET
    user_id = CASE WHEN $3::boolean THEN $4::varchar ELSE user_id END,
    identifier_updated_at = CASE WHEN $3::boolean AND user_id IS DISTINCT FROM $4::varchar THEN now() ELSE identifier_updated_at END,
    permission = COALESCE($5::varchar, permission),
    permission_updated_at = CASE WHEN permission IS DISTINCT FROM COALESCE($5::varchar, permission) THEN now() ELSE permission_updated_at END,
    device = CASE WHEN $6::jsonb IS NULL THEN device ELSE device || $6::jsonb END,
    push_token = COALESCE($7::text, push_token),
    web_push_subscription = COALESCE($8::jsonb, web_push_subscription),
    invalidated_at = CASE WHEN push_token IS DISTINCT FROM COALESCE($7::text, push_token)
      OR web_push_subscription IS DISTINCT FROM COALESCE($8::jsonb, web_push_subscription) THEN NULL ELSE invalidated_at END,
    invalid_reason = CASE WHEN push_token IS DISTINCT FROM COALESCE($7::text, push_token)
      OR web_push_subscription IS DISTINCT FROM COALESCE($8::jsonb, web_push_subscription) THEN NULL ELSE invalid_reason END,
    last_seen_at = now()
  WHERE app_id = $1 AND installation_id = $2 AND deleted_at IS NULL
  RETURNING ${INSTALLATION_COLUMNS}`;

/** Creates the row, or re-creates one that was deleted, as if it were new. */
const CREATE_SQL = `
  INSERT INTO installations AS i (app_id, installation_id, platform, push_token, web_push_subscription, device, user_id,
    permission, registered_at, last_seen_at, identifier_updated_at, permission_updated_at)
  VALUES ($1, $2, $3, $4, $5::jsonb, $6::jsonb, $7::varchar, COALESCE($8::varchar, 'unknown'), now(), now(),
    CASE WHEN $7::varchar IS NOT NULL THEN now() END, CASE WHEN $8::varchar IS NOT NULL THEN now() END)
  ON CONFLICT (app_id, installation_id) DO UPDATE SET
    platform = EXCLUDED.platform, push_token = EXCLUDED.push_token, web_push_subscription = EXCLUDED.web_push_subscription,
    device = EXCLUDED.device, user_id = EXCLUDED.user_id, permission = EXCLUDED.permission,
    registered_at = EXCLUDED.registered_at, last_seen_at = EXCLUDED.last_seen_at,
    identifier_updated_at = EXCLUDED.identifier_updated_at, permission_updated_at = EXCLUDED.permission_updated_at,
    invalidated_at = NULL, invalid_reason = NULL, deleted_at = NULL
  WHERE i.deleted_at IS NOT NULL
  RETURNING *`;

/** Installations of one app: registration, updates, reads and deletion (docs/api.md section 4). */
@Injectable()
export class InstallationsService {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  async find(appId: string, installationId: string): Promise<InstallationResource> {
    const [row]: InstallationRow[] = await this.db.query(
      `SELECT * FROM installations WHERE app_id = $1 AND installation_id = $2 AND deleted_at IS NULL`,
      [appId, installationId],
    );
    if (!row) throw new NotFoundError();
    return toInstallationResource(row);
  }

  /** PUT: creates (created = true) or refreshes the installation. */
  async register(
    appId: string,
    installationId: string,
    dto: RegisterInstallationDto,
  ): Promise<{ created: boolean; installation: InstallationResource }> {
    // Two attempts cover a concurrent PUT or DELETE of the same installation between the statements.
    for (let attempt = 0; ; attempt++) {
      const platform = await this.platformOf(appId, installationId);
      if (platform) {
        if (dto.platform !== undefined && dto.platform !== platform) {
          throw ValidationFailedError.of('platform', `The platform field cannot be changed (the installation is ${platform}).`);
        }
        const row = await this.applyChanges(appId, installationId, platform, dto);
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
        'The request body must contain at least one of user_id, permission, push_token, web_push_subscription, device.',
      );
    }
    let platform: Platform | null = null;
    if (dto.push_token !== undefined || dto.web_push_subscription !== undefined) {
      platform = await this.platformOf(appId, installationId);
      if (!platform) throw new NotFoundError();
    }
    const row = await this.applyChanges(appId, installationId, platform, dto);
    if (!row) throw new NotFoundError();
    return toInstallationResource(row);
  }

  async remove(appId: string, installationId: string): Promise<void> {
    // The row stays for the deliveries and events that refer to it; its personal data goes.
    const [, count]: [unknown[], number] = await this.db.query(
      `UPDATE installations SET deleted_at = now(), push_token = NULL, web_push_subscription = NULL, user_id = NULL,
         device = '{}'::jsonb
       WHERE app_id = $1 AND installation_id = $2 AND deleted_at IS NULL`,
      [appId, installationId],
    );
    if (count === 0) throw new NotFoundError();
  }

  private async platformOf(appId: string, installationId: string): Promise<Platform | null> {
    const [row] = await this.db.query(
      `SELECT platform FROM installations WHERE app_id = $1 AND installation_id = $2 AND deleted_at IS NULL`,
      [appId, installationId],
    );
    return row?.platform ?? null;
  }

  /** Runs UPDATE_SQL; `platform` is needed (and checked) only when a token is being changed. */
  private async applyChanges(
    appId: string,
    installationId: string,
    platform: Platform | null,
    dto: Changes,
  ): Promise<InstallationRow | undefined> {
    if (platform) throwIfInvalid(tokenErrors(platform, dto));
    // A prepared statement: this is the whole of a PATCH's own database work.
    const { rows } = await preparedQuery<InstallationRow>(this.db, 'installations_update', UPDATE_SQL, [
      appId,
      installationId,
      dto.user_id !== undefined,
      dto.user_id ?? null,
      dto.permission ?? null,
      dto.device ? JSON.stringify(dto.device) : null,
      normalizeToken(platform, dto.push_token),
      dto.web_push_subscription ? JSON.stringify(subscriptionOf(dto.web_push_subscription)) : null,
    ]);
    return rows[0];
  }

  private async create(appId: string, installationId: string, dto: RegisterInstallationDto): Promise<InstallationRow | undefined> {
    const errors: ErrorBag = {};
    const { platform } = dto;
    if (!platform) {
      errors.platform = ['The platform field is required when the installation is registered.'];
    } else {
      Object.assign(errors, tokenErrors(platform, dto));
      if (platform === 'web' && !dto.web_push_subscription) {
        errors.web_push_subscription ??= ['The web_push_subscription field is required when platform is web.'];
      }
      if (platform !== 'web' && !dto.push_token) {
        errors.push_token ??= [`The push_token field is required when platform is ${platform}.`];
      }
    }
    throwIfInvalid(errors);
    const [row]: InstallationRow[] = await this.db.query(CREATE_SQL, [
      appId,
      installationId,
      platform,
      normalizeToken(platform!, dto.push_token),
      dto.web_push_subscription ? JSON.stringify(subscriptionOf(dto.web_push_subscription)) : null,
      JSON.stringify(dto.device ?? {}),
      dto.user_id ?? null,
      dto.permission ?? null,
    ]);
    return row;
  }
}

function tokenErrors(platform: Platform, dto: Changes): ErrorBag {
  const errors: ErrorBag = {};
  if (platform === 'web' && dto.push_token !== undefined) {
    errors.push_token = ['The push_token field is prohibited when platform is web; send web_push_subscription.'];
  }
  if (platform !== 'web' && dto.web_push_subscription !== undefined) {
    errors.web_push_subscription = [`The web_push_subscription field is prohibited when platform is ${platform}.`];
  }
  if (platform === 'ios' && dto.push_token !== undefined && !APNS_TOKEN.test(dto.push_token)) {
    errors.push_token = ['The push_token field must be an APNs device token (64 to 200 hexadecimal characters).'];
  }
  return errors;
}

function throwIfInvalid(errors: ErrorBag): void {
  if (Object.keys(errors).length > 0) throw new ValidationFailedError(errors);
}

/** APNs tokens are stored in lower case, so the same token sent in upper case is not a change. */
function normalizeToken(platform: Platform | null, token: string | undefined): string | null {
  if (token === undefined) return null;
  return platform === 'ios' ? token.toLowerCase() : token;
}

/** Only what delivery needs; `expirationTime` and unknown extras are dropped. */
function subscriptionOf(dto: NonNullable<Changes['web_push_subscription']>) {
  return { endpoint: dto.endpoint, keys: { p256dh: dto.keys.p256dh, auth: dto.keys.auth } };
}
