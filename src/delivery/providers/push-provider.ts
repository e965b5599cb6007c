import { Platform, WebPushSubscription } from '../../common/platform';
import { ProviderCredentials } from '../../credentials/provider-credentials';
import { PushContent } from './payloads';

export interface DeliveryTarget {
  /** installations.id */
  installationId: string;
  pushToken: string | null;
  webPushSubscription: WebPushSubscription | null;
  /** iOS: the badge count this installation's increment reached (docs/api.md#badge-arithmetic), sent instead of the increment; absent otherwise. */
  badge?: number | null;
}

/**
 * What a provider's answer means for us. Providers never throw for provider or network errors:
 * those are outcomes. `invalid` marks the installation invalidated (and counts as failed);
 * `retry` goes back to the queue with backoff (honouring retryAfterMs when longer).
 */
export type DeliveryOutcome =
  { kind: 'accepted' } | { kind: 'invalid'; reason: string } | { kind: 'retry'; reason: string; retryAfterMs?: number } | { kind: 'failed'; reason: string };

/** One provider's line of `credentials:check` (docs/api.md#credentials-check). */
export interface CredentialCheck {
  ok: boolean;
  /** What was proven, or what the provider answered instead. */
  detail: string;
}

/**
 * A well-formed device token that no device has, for proving credentials without reaching one:
 * a provider that gets as far as the token (APNs BadDeviceToken, FCM INVALID_ARGUMENT) has
 * accepted everything else.
 */
export const MADE_UP_TOKEN = '0'.repeat(64);

/** What a credentials check sends: it never reaches a device. */
export const CHECK_CONTENT = {
  title: 'Credentials check',
  body: 'Sent by credentials:check to a token no device has.',
  image_url: null,
  action_url: null,
  data: null,
} as const;

export interface PushProvider {
  readonly platform: Platform;
  /**
   * Whether `send` answers a dry run (docs/api.md#dry-runs) by having the provider validate the
   * message without delivering it (FCM's `validate_only`); providers without it are not called.
   */
  readonly validatesDryRun: boolean;
  /** Whether the app has what this provider needs (else its installations are skipped). */
  configured(credentials: ProviderCredentials): boolean;
  send(credentials: ProviderCredentials, content: PushContent, target: DeliveryTarget): Promise<DeliveryOutcome>;
  /** Proves the app's stored credentials against the provider without reaching a device; only when `configured`. */
  check(credentials: ProviderCredentials): Promise<CredentialCheck>;
}

/** Nest injection token for the list of providers. */
export const PUSH_PROVIDERS = Symbol('PUSH_PROVIDERS');
