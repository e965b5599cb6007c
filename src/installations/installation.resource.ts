import { pushProviderOf } from '../common/platform';
import { iso } from '../common/time';
import { Device } from './installation.entity';
import type { InstallationRow } from './installations.repository';

const DEVICE_FIELDS = ['app_version', 'os_version', 'model', 'locale', 'timezone'] as const;

/** The Installation resource: every field present, unset ones null, the push token never shown. */
export function toInstallationResource(row: InstallationRow) {
  const device = Object.fromEntries(DEVICE_FIELDS.map((field) => [field, row.device?.[field] ?? null])) as unknown as Device;
  return {
    id: row.id,
    installation_id: row.installation_id,
    platform: row.platform,
    push_provider: pushProviderOf(row.platform, row.web_push_subscription !== null),
    permission: row.permission,
    device,
    user_id: row.user_id,
    registered_at: iso(row.registered_at),
    last_seen_at: iso(row.last_seen_at),
    identifier_updated_at: iso(row.identifier_updated_at),
    permission_updated_at: iso(row.permission_updated_at),
    invalidated_at: iso(row.invalidated_at),
    invalid_reason: row.invalid_reason,
    tags: row.tags,
    properties: row.properties ?? {},
    badge: row.platform === 'ios' ? row.badge : null,
    // docs/api.md#live-activity-start-tokens: write-only; their types are shown.
    live_activity_types: Object.keys(row.live_activity_start_tokens ?? {}).sort(),
    // docs/api.md#widgets: write-only; whether there is one is shown.
    has_widget_token: row.widget_push_token !== null && row.widget_push_token !== undefined,
  };
}

export type InstallationResource = ReturnType<typeof toInstallationResource>;
