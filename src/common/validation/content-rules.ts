import type { ApiPropertyOptions } from '@nestjs/swagger';
import { checkString, KeyedObjects } from './rules';
import { checkHttpsUrl, checkLinkUrl } from './domain-rules';

/** A notification's content rules that sends and templates share (docs/api.md#send, #localization, #templates). */

/**
 * Why a `data` key is reserved, or null: the service puts the first two into every message's data,
 * FCM refuses the others (docs/api.md#notifications). Compared without case, as FCM does.
 */
export function reservedDataKey(key: string): string | null {
  const lower = key.toLowerCase();
  if (lower === 'notification_id' || lower === 'action_url') return 'the service sets it in every message';
  if (['from', 'message_type', 'collapse_key', 'notification'].includes(lower) || lower.startsWith('google.') || lower.startsWith('gcm.')) {
    return 'FCM reserves it';
  }
  return null;
}

/** One language's variant of the content (docs/api.md#localization): each field under the default field's rule. */
const LOCALIZED_FIELDS = {
  title: checkString({ min: 1, max: 256 }),
  body: checkString({ min: 1, max: 4000 }),
  image_url: checkHttpsUrl(2048),
  action_url: checkLinkUrl(2048),
};

export interface LocalizedContent {
  title?: string;
  body?: string;
  image_url?: string;
  action_url?: string;
}

/** `localizations` (docs/api.md#localization): at most 50 language tags, each a variant of the content's fields. */
export const Localizations = () =>
  KeyedObjects({
    maxKeys: 50,
    key: /^[A-Za-z0-9-]{2,35}$/,
    keyMessage: 'The :attribute field name must be a BCP 47 language tag (2 to 35 letters, digits and -).',
    fields: LOCALIZED_FIELDS,
    minFields: 1,
    schema: {
      type: 'object',
      maxProperties: 50,
      // OpenAPI 3.0 has no propertyNames: the keys' rule, for tools that read it.
      'x-key-pattern': '^[A-Za-z0-9-]{2,35}$',
      additionalProperties: {
        type: 'object',
        minProperties: 1,
        additionalProperties: false,
        properties: Object.fromEntries(Object.entries(LOCALIZED_FIELDS).map(([name, check]) => [name, check.schema])),
      },
    } as ApiPropertyOptions,
  });
