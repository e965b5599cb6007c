export const BEARER_SCHEME = 'bearer';
export const ABILITIES_EXTENSION = 'x-required-abilities';
