import type { components } from '../../api.generated';

type Schemas = components['schemas'];
type Ability = Schemas['CreateTokenDto']['abilities'][number];
type EventType = Schemas['CreateWebhookDto']['events'][number];

/** Every ability a token may have, as the server's OpenAPI document lists them: the compiler fails if one is missing. */
const ABILITIES = [
  '*',
  'installations:read',
  'installations:write',
  'installations:identify',
  'notifications:send',
  'notifications:read',
  'events:write',
  'topics:write',
  'templates:write',
  'users:manage',
  'users:self',
  'audit:read',
] as const satisfies readonly Ability[];

const WEBHOOK_EVENTS = [
  'notification.completed',
  'notification.canceled',
  'installation.invalidated',
  'inbox.read',
  'notification.ab_test_decided',
] as const satisfies readonly EventType[];

type Missing<All, Listed> = [Exclude<All, Listed>] extends [never] ? readonly Listed[] : { missing: Exclude<All, Listed> };

export const abilityChoices: Missing<Ability, (typeof ABILITIES)[number]> = ABILITIES;
export const webhookEventChoices: Missing<EventType, (typeof WEBHOOK_EVENTS)[number]> = WEBHOOK_EVENTS;

/** A chosen file's text (a `.p8` key or a service-account JSON); empty for none. */
export function readFileText(file: File | undefined): Promise<string> {
  return file ? file.text() : Promise.resolve('');
}
