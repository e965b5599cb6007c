import { ApiProperty } from '@nestjs/swagger';
import type { Expect, SameKeys } from '../../common/http/api-responses';
import { type Permission, PERMISSIONS, type Platform, PLATFORMS } from '../installation.entity';
import type { InstallationResource as MappedInstallation } from '../installation.resource';
import type { PropertyValue } from '../../common/validation/domain-rules';
import { PUSH_PROVIDER_NAMES, type PushProviderName } from '../../common/platform';

// OpenAPI shapes of what toInstallationResource() returns: every field present, unset ones null.

const TIMESTAMP = { type: String, format: 'date-time', example: '2026-11-22T10:00:00.000Z' } as const;

export class DeviceResource {
  @ApiProperty({ type: String, nullable: true, example: '1.4.0' }) app_version: string | null;
  @ApiProperty({ type: String, nullable: true, example: '18.1' }) os_version: string | null;
  @ApiProperty({ type: String, nullable: true, example: 'iPhone16,1' }) model: string | null;
  @ApiProperty({ type: String, nullable: true, example: 'en_GB' }) locale: string | null;
  @ApiProperty({ type: String, nullable: true, example: 'Europe/London' }) timezone: string | null;
}

export class InstallationResource {
  @ApiProperty({ format: 'uuid', description: 'Server id of the installation record.' }) id: string;
  @ApiProperty({ maxLength: 255, description: "The client's own stable identifier.", example: '3f1c-device-install' })
  installation_id: string;
  @ApiProperty({ enum: PLATFORMS, example: 'ios' }) platform: Platform;
  @ApiProperty({
    enum: PUSH_PROVIDER_NAMES,
    example: 'apns',
    description:
      'The push service that reaches it (docs/api.md#push-provider): `apns`, `fcm`, `web_push`, `unifiedpush` (Android with a UnifiedPush distributor) or `hms`.',
  })
  push_provider: PushProviderName;
  @ApiProperty({ enum: PERMISSIONS, example: 'granted' }) permission: Permission;
  @ApiProperty({ type: () => DeviceResource }) device: DeviceResource;
  @ApiProperty({ type: String, nullable: true, example: 'user-1' }) user_id: string | null;
  @ApiProperty(TIMESTAMP) registered_at: string;
  @ApiProperty(TIMESTAMP) last_seen_at: string;
  @ApiProperty({ ...TIMESTAMP, nullable: true, description: 'When `user_id` last really changed.' }) identifier_updated_at: string | null;
  @ApiProperty({ ...TIMESTAMP, nullable: true, description: 'When `permission` last really changed.' }) permission_updated_at: string | null;
  @ApiProperty({ ...TIMESTAMP, nullable: true, description: 'When a provider reported the token invalid; cleared by a new token.' })
  invalidated_at: string | null;
  @ApiProperty({ type: String, nullable: true, description: "The provider's reason, e.g. `Unregistered`.", example: null })
  invalid_reason: string | null;
  @ApiProperty({ type: [String], description: 'Sorted, without duplicates; `[]` when none.', example: ['beta', 'plan:pro'] }) tags: string[];
  @ApiProperty({
    type: 'object',
    additionalProperties: { oneOf: [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }] },
    description: 'Typed values by key (docs/api.md#properties); `{}` when none.',
    example: { plan: 'pro', purchases: 3 },
  })
  properties: Record<string, PropertyValue>;
  @ApiProperty({ type: 'integer', nullable: true, description: 'iOS badge count (docs/api.md#badge-arithmetic); null on other platforms.', example: 0 })
  badge: number | null;
  @ApiProperty({
    type: [String],
    description: 'The ActivityAttributes types it holds push-to-start tokens for, sorted (docs/api.md#live-activity-start-tokens); `[]` when none.',
    example: ['DeliveryAttributes'],
  })
  live_activity_types: string[];
  @ApiProperty({ description: 'Whether it holds a WidgetKit push token (docs/api.md#widgets); the token itself is write-only.', example: false })
  has_widget_token: boolean;
}

export class InstallationEnvelope {
  @ApiProperty({ type: () => InstallationResource }) data: InstallationResource;
}

/** Fails to compile when the documented fields drift from what the API returns. */
export type InstallationDocMatches = [
  Expect<SameKeys<InstallationResource, MappedInstallation>>,
  Expect<SameKeys<DeviceResource, MappedInstallation['device']>>,
];
