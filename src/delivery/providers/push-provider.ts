import { Platform, PushProviderName, WebPushSubscription } from '../../common/platform';
import { ProviderCredentials } from '../../credentials/provider-credentials';
import { PushContent } from './payloads';

export interface DeliveryTarget {
  installationId: string;
  pushToken: string | null;
  webPushSubscription: WebPushSubscription | null;
  /** The installation's provider (docs/api.md#push-provider); `unifiedpush` has the Web Push provider send the UnifiedPush payload. Absent: the platform's. */
  pushProvider?: PushProviderName;
  /** iOS: the badge count this installation's increment reached (docs/api.md#badge-arithmetic), sent instead of the increment; absent otherwise. */
  badge?: number | null;
}

/** A provider's answer; providers never throw for provider or network errors. `invalid` invalidates, `retry` backs off. */
export type DeliveryOutcome =
  /** `providerMessageId`: the provider's id of the message (docs/api.md#delivery-trace), where it gives one. */
  | { kind: 'accepted'; providerMessageId?: string }
  | { kind: 'invalid'; reason: string }
  | { kind: 'retry'; reason: string; retryAfterMs?: number }
  | { kind: 'failed'; reason: string };

/** One provider's line of `credentials:check` (docs/api.md#credentials-check). */
export interface CredentialCheck {
  ok: boolean;
  detail: string;
}

/** A well-formed token no device has: a provider that gets as far as rejecting it accepted everything else. */
export const MADE_UP_TOKEN = '0'.repeat(64);

export const CHECK_CONTENT = {
  title: 'Credentials check',
  body: 'Sent by credentials:check to a token no device has.',
  image_url: null,
  action_url: null,
  data: null,
} as const;

export interface PushProvider {
  readonly platform: Platform;
  /** Whether `send` can have the provider validate a dry run without delivering it (docs/api.md#dry-runs). */
  readonly validatesDryRun: boolean;
  /** Whether the app has what this provider needs (else its installations are skipped). */
  configured(credentials: ProviderCredentials): boolean;
  send(credentials: ProviderCredentials, content: PushContent, target: DeliveryTarget): Promise<DeliveryOutcome>;
  /** Proves the app's stored credentials against the provider without reaching a device; only when `configured`. */
  check(credentials: ProviderCredentials): Promise<CredentialCheck>;
}

export const PUSH_PROVIDERS = Symbol('PUSH_PROVIDERS');
