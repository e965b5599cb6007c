/** Abilities a token can hold (docs/api.md#tokens); `*` grants all of them. */
export const ABILITIES = [
  'installations:write',
  'installations:read',
  'notifications:send',
  'notifications:read',
  'events:write',
  'installations:identify',
  'topics:write',
  'templates:write',
  'users:manage',
  'users:self',
] as const;
export type Ability = (typeof ABILITIES)[number];
export const ALL_ABILITIES = '*';

export function isKnownAbility(value: string): boolean {
  return value === ALL_ABILITIES || (ABILITIES as readonly string[]).includes(value);
}

export function grants(held: readonly string[], required: Ability): boolean {
  return held.includes(ALL_ABILITIES) || held.includes(required);
}
