import { PLATFORMS, type Platform, type PushProviderName, pushProviderOf } from '../../common/platform';
import {
  apnsPayload,
  contentFor,
  fcmMessage,
  hmsMessage,
  PAYLOAD_LIMITS,
  payloadSize,
  type PushContent,
  targetedPlatforms,
  unifiedPushPayload,
  webPushPayload,
} from '../../delivery/providers/payloads';
import { rendered, type Recipient } from '../../delivery/providers/personalize';
import { LiquidRenderError } from '../../common/liquid';
import { SkipReason } from '../../common/vocabulary';

/** One platform's message in a preview (docs/api.md#preview). */
export interface PlatformPreview {
  platform: Platform;
  provider: PushProviderName;
  /** The body the provider would receive (FCM's and Huawei's `message` without its token); null when skipped. */
  payload: Record<string, unknown> | null;
  bytes: number | null;
  limit: number;
  /** RenderFailed or PayloadTooLarge, as the delivery would skip it; else null. */
  skip_reason: string | null;
  /** The renderer's message for RenderFailed; else null. */
  detail: string | null;
}

function payloadOf(content: PushContent, provider: PushProviderName): Record<string, unknown> {
  switch (provider) {
    case 'apns':
      return apnsPayload(content);
    case 'fcm': {
      const { token: _token, ...message } = fcmMessage(content, '');
      return { message };
    }
    case 'hms':
      return { message: hmsMessage(content) };
    case 'unifiedpush':
      return unifiedPushPayload(content);
    case 'web_push':
      return webPushPayload(content);
  }
}

/**
 * The message each platform would carry, built with the delivery's own code: localized for the
 * recipient's locale, rendered when the send is Liquid, sized against the provider's limit.
 * With an installation, only its platform; without, every platform the send targets.
 */
export function previewOf(content: PushContent, recipient: Recipient & { holds_subscription: boolean }, only: Platform | null): PlatformPreview[] {
  const platforms = only ? [only] : targetedPlatforms(content).filter((platform) => PLATFORMS.includes(platform));
  return platforms.map((platform) => {
    const provider = pushProviderOf(platform, only ? recipient.holds_subscription : false);
    const limit = PAYLOAD_LIMITS[platform];
    let built = contentFor(content, recipient.locale);
    if (content.personalization) {
      try {
        built = rendered(built, content.personalization.variables, { ...recipient, platform });
      } catch (error) {
        if (!(error instanceof LiquidRenderError)) throw error;
        return { platform, provider, payload: null, bytes: null, limit, skip_reason: SkipReason.RenderFailed, detail: error.message };
      }
    }
    const bytes = payloadSize(built, platform);
    if (bytes > limit) return { platform, provider, payload: null, bytes, limit, skip_reason: SkipReason.PayloadTooLarge, detail: null };
    return { platform, provider, payload: payloadOf(built, provider), bytes, limit, skip_reason: null, detail: null };
  });
}
