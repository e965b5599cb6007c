import { iso } from '../common/time';
import { Device, Permission, Platform, WebPushSubscription } from './installation.entity';

/** An `installations` row as PostgreSQL returns it. */
export interface InstallationRow {
  id: string;
  app_id: string;
  installation_id: string;
  platform: Platform;
  push_token: string | null;
  web_push_subscription: WebPushSubscription | null;
  device: Partial<Device>;
  user_id: string | null;
  permission: Permission;
  registered_at: Date;
  last_seen_at: Date;
  identifier_updated_at: Date | null;
  permission_updated_at: Date | null;
  invalidated_at: Date | null;
  invalid_reason: string | null;
  deleted_at: Date | null;
}

/** Every column of InstallationRow, for statements that must not say `*` (see preparedQuery). */
export const INSTALLATION_COLUMNS = `id, app_id, installation_id, platform, push_token, web_push_subscription, device, user_id,
  permission, registered_at, last_seen_at, identifier_updated_at, permission_updated_at, invalidated_at, invalid_reason, deleted_at`;

const DEVICE_FIELDS = ['app_version', 'os_version', 'model', 'locale', 'timezone'] as const;

/** The Installation resource: every field present, unset ones null, the push token never shown. */
export function toInstallationResource(row: InstallationRow) {
  const device = Object.fromEntries(DEVICE_FIELDS.map((field) => [field, row.device?.[field] ?? null])) as unknown as Device;
  return {
    id: row.id,
    installation_id: row.installation_id,
    platform: row.platform,
    permission: row.permission,
    device,
    user_id: row.user_id,
    registered_at: iso(row.registered_at),
    last_seen_at: iso(row.last_seen_at),
    identifier_updated_at: iso(row.identifier_updated_at),
    permission_updated_at: iso(row.permission_updated_at),
    invalidated_at: iso(row.invalidated_at),
    invalid_reason: row.invalid_reason,
  };
}

export type InstallationResource = ReturnType<typeof toInstallationResource>;
