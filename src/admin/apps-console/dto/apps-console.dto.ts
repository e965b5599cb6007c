import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { FREQUENCY_CAP_HOURS, FREQUENCY_CAP_MAX, INBOX_DAYS } from '../../../apps/app-settings';
import { AppSettingsDto } from '../../../apps/dto/app-settings.dto';
import { ABILITIES, ALL_ABILITIES } from '../../../auth/abilities';
import { PROVIDER_CLI_NAMES, PROVIDER_IDS } from '../../../common/vocabulary';
import { WEBHOOK_EVENT_TYPES } from '../../../common/webhook-events';
import { Optional, OptionalNotNull, Required } from '../../../common/validation/framework';
import { Bool, checkIn, In, Int, List, Nested, Str } from '../../../common/validation/rules';

// The owners' pages of an app (docs/api.md#apps-and-credentials-in-the-dashboard): what they send and
// what they are answered. No answer carries a stored secret; a new token or webhook secret is shown once.

const TIMESTAMP = { type: String, format: 'date-time', example: '2026-11-22T10:00:00.000Z' } as const;
export const PROVIDER_NAMES = PROVIDER_IDS.map((id) => PROVIDER_CLI_NAMES[id]);

export class CreateAppDto {
  @ApiProperty({ description: 'Display name, 1 to 255 characters.', example: 'Shop' })
  @Required()
  @Str({ min: 1, max: 255 })
  name: string;
}

export class AppCreatedResource {
  @ApiProperty({ type: String, format: 'uuid' }) id: string;
  @ApiProperty({ type: String, example: 'Shop' }) name: string;
  @ApiProperty(TIMESTAMP) created_at: string;
}

export class AppCreatedEnvelope {
  @ApiProperty({ type: AppCreatedResource }) data: AppCreatedResource;
}

export class PutApnsDto {
  @ApiProperty({ description: 'The text of the `.p8` file (a PKCS#8 PEM EC P-256 key); sealed when stored, never answered.' })
  @Required()
  @Str({ min: 1, max: 10_000 })
  private_key: string;
  @ApiProperty({ description: 'The 10-character Key ID.', example: 'ABC123DEFG' })
  @Required()
  @Str({ min: 1, max: 64 })
  key_id: string;
  @ApiProperty({ description: 'The 10-character Team ID.', example: 'DEF123GHIJ' })
  @Required()
  @Str({ min: 1, max: 64 })
  team_id: string;
  @ApiProperty({ description: "The iOS app's bundle id (`apns-topic`).", example: 'com.example.app' })
  @Required()
  @Str({ min: 1, max: 255 })
  topic: string;
  @ApiProperty({ enum: ['production', 'sandbox'], description: 'Which APNs the key sends to.' })
  @Required()
  @In(['production', 'sandbox'])
  environment: 'production' | 'sandbox';
}

export class PutFcmDto {
  @ApiProperty({ description: 'The text of the Firebase service-account JSON key file; sealed when stored, never answered.' })
  @Required()
  @Str({ min: 1, max: 20_000 })
  service_account: string;
}

export class PutWebPushDto {
  @ApiProperty({ description: 'A `mailto:` or `https:` contact for push services.', example: 'mailto:ops@example.com' })
  @Required()
  @Str({ min: 1, max: 255 })
  subject: string;
  @ApiPropertyOptional({ description: 'An existing VAPID public key (base64url), with `private_key`; both absent: the pair kept, or one generated.' })
  @Optional()
  @Str({ min: 1, max: 200 })
  public_key?: string | null;
  @ApiPropertyOptional({ description: 'Its private key (base64url); sealed when stored, never answered.' })
  @Optional()
  @Str({ min: 1, max: 200 })
  private_key?: string | null;
}

export class PutHmsDto {
  @ApiProperty({ description: 'The Huawei app id (AppGallery Connect).', example: '104567890' })
  @Required()
  @Str({ min: 1, max: 64 })
  app_id: string;
  @ApiProperty({ description: "The OAuth 2.0 client id of the app's project.", example: '104567890' })
  @Required()
  @Str({ min: 1, max: 64 })
  client_id: string;
  @ApiProperty({ description: "That client's secret; sealed when stored, never answered." })
  @Required()
  @Str({ min: 1, max: 512 })
  client_secret: string;
}

export class ApnsSummaryDto {
  @ApiProperty() key_id: string;
  @ApiProperty() team_id: string;
  @ApiProperty() topic: string;
  @ApiProperty() production: boolean;
}
export class FcmSummaryDto {
  @ApiProperty() project_id: string;
  @ApiProperty() client_email: string;
}
export class WebPushSummaryDto {
  @ApiProperty() subject: string;
  @ApiProperty({ description: 'The VAPID public key (base64url) the web SDK subscribes with.' }) public_key: string;
}
export class HmsSummaryDto {
  @ApiProperty() app_id: string;
  @ApiProperty() client_id: string;
}

/** What is stored of each provider, without its secret; null when none. */
export class CredentialsSummaryResource {
  @ApiProperty({ type: String, format: 'uuid' }) app_id: string;
  @ApiProperty({ type: ApnsSummaryDto, nullable: true }) apns: ApnsSummaryDto | null;
  @ApiProperty({ type: FcmSummaryDto, nullable: true }) fcm: FcmSummaryDto | null;
  @ApiProperty({ type: WebPushSummaryDto, nullable: true }) web_push: WebPushSummaryDto | null;
  @ApiProperty({ type: HmsSummaryDto, nullable: true }) hms: HmsSummaryDto | null;
}

export class CredentialsSummaryEnvelope {
  @ApiProperty({ type: CredentialsSummaryResource }) data: CredentialsSummaryResource;
}

export class CheckCredentialsDto {
  @ApiPropertyOptional({ enum: PROVIDER_NAMES, description: 'Only this provider; absent: every one stored.' })
  @Optional()
  @In(PROVIDER_NAMES)
  provider?: string | null;
}

export class CredentialCheckResource {
  @ApiProperty({ enum: PROVIDER_NAMES }) provider: string;
  @ApiProperty() ok: boolean;
  @ApiProperty({ description: 'What was proved, or what the provider answered (docs/api.md#credentials-check).' }) detail: string;
}

export class CredentialCheckList {
  @ApiProperty({ type: [CredentialCheckResource] }) data: CredentialCheckResource[];
}

export const TOKEN_ABILITIES = [...ABILITIES, ALL_ABILITIES];

export class CreateTokenDto {
  @ApiProperty({ type: [String], enum: TOKEN_ABILITIES, description: `The token's abilities; \`${ALL_ABILITIES}\` for all.` })
  @Required()
  @List({ min: 1, max: TOKEN_ABILITIES.length, item: checkIn(TOKEN_ABILITIES) })
  abilities: string[];
  @ApiPropertyOptional({ description: 'A label, at most 255 characters.', example: 'backend' })
  @Optional()
  @Str({ max: 255 })
  name?: string | null;
  @ApiPropertyOptional({ description: 'Expiry in whole days from now; absent: never.', example: 90 })
  @Optional()
  @Int({ min: 1, max: 36500 })
  expires_in_days?: number | null;
}

export class TokenResource {
  @ApiProperty({ type: String, format: 'uuid' }) id: string;
  @ApiProperty({ type: String, format: 'uuid' }) app_id: string;
  @ApiProperty({ type: String, nullable: true }) name: string | null;
  @ApiProperty({ type: [String] }) abilities: string[];
  @ApiProperty(TIMESTAMP) created_at: string;
  @ApiProperty({ ...TIMESTAMP, nullable: true }) expires_at: string | null;
  @ApiProperty({ ...TIMESTAMP, nullable: true }) revoked_at: string | null;
  @ApiProperty({ ...TIMESTAMP, nullable: true }) last_used_at: string | null;
}

export class TokenList {
  @ApiProperty({ type: [TokenResource] }) data: TokenResource[];
}

export class TokenEnvelope {
  @ApiProperty({ type: TokenResource }) data: TokenResource;
}

export class NewTokenResource extends TokenResource {
  @ApiProperty({ description: 'The token itself: shown in this answer only, never again (only its hash is stored).' }) token: string;
}

export class NewTokenEnvelope {
  @ApiProperty({ type: NewTokenResource }) data: NewTokenResource;
}

export class CreateWebhookDto {
  @ApiProperty({ description: 'The http:// or https:// URL events are POSTed to.', example: 'https://example.com/hooks/push' })
  @Required()
  @Str({ min: 1, max: 2048 })
  url: string;
  @ApiProperty({ type: [String], enum: WEBHOOK_EVENT_TYPES })
  @Required()
  @List({ min: 1, max: WEBHOOK_EVENT_TYPES.length, item: checkIn(WEBHOOK_EVENT_TYPES) })
  events: string[];
}

export class WebhookResource {
  @ApiProperty({ type: String, format: 'uuid' }) id: string;
  @ApiProperty({ type: String, format: 'uuid' }) app_id: string;
  @ApiProperty() url: string;
  @ApiProperty({ type: [String] }) events: string[];
  @ApiProperty(TIMESTAMP) created_at: string;
}

export class WebhookList {
  @ApiProperty({ type: [WebhookResource] }) data: WebhookResource[];
}

export class WebhookEnvelope {
  @ApiProperty({ type: WebhookResource }) data: WebhookResource;
}

export class NewWebhookResource {
  @ApiProperty({ type: String, format: 'uuid' }) id: string;
  @ApiProperty() url: string;
  @ApiProperty({ type: [String] }) events: string[];
  @ApiProperty({ description: 'The signing secret (Standard Webhooks): shown in this answer only, never again.' }) secret: string;
}

export class NewWebhookEnvelope {
  @ApiProperty({ type: NewWebhookResource }) data: NewWebhookResource;
}

export class FrequencyCapInput {
  @ApiProperty({ minimum: FREQUENCY_CAP_MAX.min, maximum: FREQUENCY_CAP_MAX.max, example: 3 })
  @Required()
  @Int(FREQUENCY_CAP_MAX)
  max: number;
  @ApiProperty({ minimum: FREQUENCY_CAP_HOURS.min, maximum: FREQUENCY_CAP_HOURS.max, example: 24 })
  @Required()
  @Int(FREQUENCY_CAP_HOURS)
  hours: number;
}

const CLOCK = { pattern: /^([01]\d|2[0-3]):[0-5]\d$/, patternMessage: 'The :attribute field must be a time HH:MM (24-hour clock).' };

export class QuietHoursInput {
  @ApiProperty({ example: '22:00' })
  @Required()
  @Str(CLOCK)
  start: string;
  @ApiProperty({ example: '07:00' })
  @Required()
  @Str(CLOCK)
  end: string;
}

/** Only the settings given change; null turns a cap or quiet hours off (docs/api.md#app-settings). */
export class PatchSettingsDto {
  @ApiPropertyOptional({ type: FrequencyCapInput, nullable: true })
  @Optional()
  @Nested(() => FrequencyCapInput)
  frequency_cap?: FrequencyCapInput | null;
  @ApiPropertyOptional({ type: QuietHoursInput, nullable: true })
  @Optional()
  @Nested(() => QuietHoursInput)
  quiet_hours?: QuietHoursInput | null;
  @ApiPropertyOptional()
  @OptionalNotNull()
  @Bool()
  identity_verification?: boolean;
  @ApiPropertyOptional({ minimum: INBOX_DAYS.min, maximum: INBOX_DAYS.max })
  @OptionalNotNull()
  @Int(INBOX_DAYS)
  inbox_days?: number;
}

export class AppSettingsResource {
  @ApiProperty({ type: String, format: 'uuid' }) id: string;
  @ApiProperty() name: string;
  @ApiProperty({ type: AppSettingsDto }) settings: AppSettingsDto;
}

export class AppSettingsEnvelope {
  @ApiProperty({ type: AppSettingsResource }) data: AppSettingsResource;
}
