/**
 * Our CSV of installations (docs/api.md#installation-csv): one header line, then one installation a line.
 * `pns export` writes it and `pns import --from csv` reads it, so moving between instances is export then import.
 * JSON cells (tags, properties, live_activity_start_tokens) hold JSON text; an empty cell is "not set".
 */
export const INSTALLATION_CSV_COLUMNS = [
  'installation_id',
  'platform',
  'push_provider',
  'push_token',
  'web_push_endpoint',
  'web_push_p256dh',
  'web_push_auth',
  'widget_push_token',
  'user_id',
  'permission',
  'app_version',
  'os_version',
  'model',
  'locale',
  'timezone',
  'tags',
  'properties',
  'badge',
  'live_activity_start_tokens',
  'registered_at',
  'last_seen_at',
  'identifier_updated_at',
  'permission_updated_at',
  'invalidated_at',
  'invalid_reason',
] as const;

export type InstallationCsvColumn = (typeof INSTALLATION_CSV_COLUMNS)[number];

/** The columns that carry a channel to the device: written only with `pns export --with-tokens`. */
export const TOKEN_COLUMNS: readonly InstallationCsvColumn[] = [
  'push_token',
  'web_push_endpoint',
  'web_push_p256dh',
  'web_push_auth',
  'widget_push_token',
  'live_activity_start_tokens',
];
