import { ApiPropertyOptions } from '@nestjs/swagger';
import { bareHost, isAddressOrLocalName, URL_PATH_AND_QUERY, WebPushHosts } from '../web-push-hosts';
import { Check, described, INNER_ERRORS, isPlainObject, markVerbatim, rule } from './framework';
import { checkString } from './rules';

/** An installation id (the `{installationId}` path parameter): 1..255 characters, no NUL. */
export const INSTALLATION_ID = checkString({
  min: 1,
  max: 255,
  // eslint-disable-next-line no-control-regex -- the pattern exists to refuse NUL
  pattern: /^[^\u0000]*$/,
  patternMessage: 'The :attribute field must not contain NUL characters.',
});

/** One installation tag (docs/api.md#recipients): an installation's `tags` and a send's `recipients.tags` share it. */
export const TAG = checkString({
  min: 1,
  max: 64,
  pattern: /^[A-Za-z0-9_.:-]+$/,
  patternMessage: 'The :attribute field may contain only letters, digits, _ . : and -.',
});

/** HttpsUrl's documented pattern, never wider than the check: https, a DNS name of 2+ labels (the last starts with a letter), a path. */
const HTTPS_URL_PATTERN = `^https://(?:[a-z0-9]+(?:-[a-z0-9]+)*\\.)+[a-z][a-z0-9]*(?:-[a-z0-9]+)*${URL_PATH_AND_QUERY}$`;

export function checkHttpsUrl(max: number): Check {
  const asString = checkString({ max });
  return described(
    (value) => {
      const problem = asString(value);
      if (problem) return problem;
      let url: URL;
      try {
        url = new URL(value as string);
      } catch {
        return 'The :attribute field must be an absolute https:// URL.';
      }
      if (url.protocol !== 'https:' || !url.hostname) return 'The :attribute field must be an absolute https:// URL.';
      if (url.username || url.password) return 'The :attribute field must not contain user info.';
      // The URL parser has already turned 0x7f000001, 2130706433 and 0177.0.0.1 into 127.0.0.1.
      if (isAddressOrLocalName(bareHost(url.hostname))) return 'The :attribute field must name a public DNS host, not an IP address or a local name.';
      return null;
    },
    { type: 'string', format: 'uri', maxLength: max, pattern: HTTPS_URL_PATTERN },
  );
}

export const HttpsUrl = (max: number) => rule('httpsUrl', checkHttpsUrl(max));

/** Schema extension that buildOpenApiDocument replaces by the configured allow-list's pattern. */
export const WEB_PUSH_ENDPOINT_EXTENSION = 'x-web-push-endpoint';

/** A Web Push subscription endpoint: https, no credentials, a host on `hosts()` (web-push-hosts.ts). */
export function WebPushEndpoint(max: number, hosts: () => WebPushHosts) {
  const asString = checkString({ max });
  return rule(
    'webPushEndpoint',
    described((value) => asString(value) ?? hosts().endpointProblem(value as string), {
      type: 'string',
      format: 'uri',
      maxLength: max,
      [WEB_PUSH_ENDPOINT_EXTENSION]: true,
    } as ApiPropertyOptions),
  );
}

/** Schemes a device would run or read locally instead of opening: never a notification's link. */
const UNSAFE_LINK_SCHEMES = ['javascript', 'data', 'vbscript', 'file'];
const anyCase = (word: string) => [...word].map((c) => `[${c.toLowerCase()}${c.toUpperCase()}]`).join('');
const UNSAFE_LINK_PATTERN = `^(?:${UNSAFE_LINK_SCHEMES.map(anyCase).join('|')}):`;

/** An absolute URL or an app deep link (`scheme://...`), never javascript:, data:, vbscript: or file:. */
export function checkLinkUrl(max: number): Check {
  const asString = checkString({
    max,
    pattern: /^[A-Za-z][A-Za-z0-9+.-]*:\/\/\S+$/,
    patternMessage: 'The :attribute field must be an absolute URL or an app deep link (scheme://...).',
  });
  return described(
    (value) => {
      const problem = asString(value);
      if (problem) return problem;
      const scheme = (value as string).slice(0, (value as string).indexOf(':')).toLowerCase();
      return UNSAFE_LINK_SCHEMES.includes(scheme) ? `The :attribute field must not use the ${scheme}: scheme.` : null;
    },
    { ...asString.schema, not: { pattern: UNSAFE_LINK_PATTERN } },
  );
}

export const LinkUrl = (max: number) => rule('linkUrl', checkLinkUrl(max));

/** Installation properties (docs/api.md#properties): keys, their number and the values they may hold. */
export const PROPERTY_KEY = /^[a-z][a-z0-9_]{0,63}$/;
export const MAX_PROPERTIES = 50;
export const PROPERTY_STRING_MAX = 255;
/** Every JSON number a body may hold (docs/api.md#limits): beyond these, doubles are integers that lost digits. */
export const SAFE_NUMBER_BOUNDS = { minimum: Number.MIN_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER };
export type PropertyValue = string | number | boolean;

export const checkPropertyValue: Check = described(
  (value) => {
    if (typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value))) return null;
    if (typeof value !== 'string') return 'The :attribute field must be a string, a number or a boolean.';
    return checkString({ max: PROPERTY_STRING_MAX })(value);
  },
  // OpenAPI 3.0 has no type list: any of the three, as oneOf.
  { oneOf: [{ type: 'string', maxLength: PROPERTY_STRING_MAX }, { type: 'number', ...SAFE_NUMBER_BOUNDS }, { type: 'boolean' }] },
);

const PROPERTY_KEY_MESSAGE = 'The :attribute field name must be a lower-case letter followed by at most 63 lower-case letters, digits and _.';

/** An installation's `properties`: kept as parsed (`constructor` too), problems reported at `properties.<key>`. */
export function Properties(): PropertyDecorator {
  const problems = (value: unknown): [string, string][] =>
    Object.entries(value as Record<string, unknown>).flatMap(([key, entry]): [string, string][] => {
      if (!PROPERTY_KEY.test(key)) return [[key, PROPERTY_KEY_MESSAGE]];
      const problem = entry === null ? null : checkPropertyValue(entry);
      return problem ? [[key, problem]] : [];
    });
  return (target, key) => {
    rule(
      'properties',
      described(
        (value) => {
          if (!isPlainObject(value)) return 'The :attribute field must be an object.';
          if (Object.keys(value).length > MAX_PROPERTIES) return `The :attribute field must not have more than ${MAX_PROPERTIES} keys.`;
          return problems(value).length > 0 ? INNER_ERRORS : null;
        },
        {
          type: 'object',
          maxProperties: MAX_PROPERTIES,
          // OpenAPI 3.0 has no propertyNames: the keys' rule, for tools that read it.
          'x-key-pattern': PROPERTY_KEY.source,
          additionalProperties: { ...checkPropertyValue.schema, nullable: true },
        } as ApiPropertyOptions,
      ),
      { problems },
    )(target, key);
    markVerbatim(target, key);
  };
}

/** Live Activity start tokens (docs/api.md#live-activity-start-tokens): ActivityAttributes type names and their tokens. */
export const ATTRIBUTES_TYPE = /^[A-Za-z0-9_.]{1,128}$/;
export const MAX_START_TOKENS = 10;
const ATTRIBUTES_TYPE_MESSAGE = 'The :attribute field name must be 1 to 128 characters of A-Z a-z 0-9 _ and .';
export const APNS_TOKEN = checkString({
  min: 64,
  max: 200,
  // The length in the pattern too, so a generator of matching strings (the OpenAPI fuzz test) makes valid ones.
  pattern: /^[0-9a-fA-F]{64,200}$/,
  patternMessage: 'The :attribute field must be an APNs token (64 to 200 hexadecimal characters).',
});

export const ATTRIBUTES_TYPE_NAME = checkString({
  min: 1,
  max: 128,
  pattern: ATTRIBUTES_TYPE,
  patternMessage: 'The :attribute field may contain only letters, digits, _ and . (at most 128).',
});

/** `live_activity_start_tokens`: at most 10 type names and their push-to-start tokens; problems at `live_activity_start_tokens.<type>`. */
export function LiveActivityStartTokens(): PropertyDecorator {
  const problems = (value: unknown): [string, string][] =>
    Object.entries(value as Record<string, unknown>).flatMap(([key, entry]): [string, string][] => {
      if (!ATTRIBUTES_TYPE.test(key)) return [[key, ATTRIBUTES_TYPE_MESSAGE]];
      const problem = APNS_TOKEN(entry);
      return problem ? [[key, problem]] : [];
    });
  return (target, key) => {
    rule(
      'liveActivityStartTokens',
      described(
        (value) => {
          if (!isPlainObject(value)) return 'The :attribute field must be an object.';
          if (Object.keys(value).length > MAX_START_TOKENS) return `The :attribute field must not have more than ${MAX_START_TOKENS} entries.`;
          return problems(value).length > 0 ? INNER_ERRORS : null;
        },
        {
          type: 'object',
          maxProperties: MAX_START_TOKENS,
          'x-key-pattern': ATTRIBUTES_TYPE.source,
          additionalProperties: { type: 'string', minLength: 64, maxLength: 200, pattern: '^[0-9a-fA-F]{64,200}$' },
        } as ApiPropertyOptions,
      ),
      { problems },
    )(target, key);
    markVerbatim(target, key);
  };
}

/** A topic's key (docs/api.md#topics): the `{key}` path parameter, `options.topic`, `recipients.topic` and preferences' `topics` keys. */
export const TOPIC_KEY_PATTERN = /^[a-z0-9_-]{1,64}$/;
export const TOPIC_KEY = checkString({
  min: 1,
  max: 64,
  pattern: /^[a-z0-9_-]+$/,
  patternMessage: 'The :attribute field may contain only lower-case letters, digits, _ and -.',
});
export const MAX_TOPICS = 100;

const TOPIC_CHOICE = 'The :attribute field must be true, false or null.';

/** Preferences' `topics`: topic keys to true, false or null; problems reported at `topics.<key>`. */
export function TopicChoices(): PropertyDecorator {
  const problems = (value: unknown): [string, string][] =>
    Object.entries(value as Record<string, unknown>).flatMap(([key, entry]): [string, string][] => {
      if (!TOPIC_KEY_PATTERN.test(key)) return [[key, 'The :attribute field name must be 1 to 64 lower-case letters, digits, _ and -.']];
      return entry === null || typeof entry === 'boolean' ? [] : [[key, TOPIC_CHOICE]];
    });
  return (target, key) => {
    rule(
      'topicChoices',
      described(
        (value) => {
          if (!isPlainObject(value)) return 'The :attribute field must be an object.';
          if (Object.keys(value).length > MAX_TOPICS) return `The :attribute field must not have more than ${MAX_TOPICS} keys.`;
          return problems(value).length > 0 ? INNER_ERRORS : null;
        },
        {
          type: 'object',
          maxProperties: MAX_TOPICS,
          'x-key-pattern': TOPIC_KEY_PATTERN.source,
          additionalProperties: { type: 'boolean', nullable: true },
        } as ApiPropertyOptions,
      ),
      { problems },
    )(target, key);
    markVerbatim(target, key);
  };
}
