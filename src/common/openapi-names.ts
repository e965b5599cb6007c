/**
 * Names that the route decorators (auth) write into the OpenAPI document and that its builder
 * (common/http/openapi.ts) reads back; here so that common needs nothing from a feature.
 */
/** The security scheme name in the OpenAPI document. */
export const BEARER_SCHEME = 'bearer';
/** OpenAPI extension listing the abilities an operation needs (also written into its description). */
export const ABILITIES_EXTENSION = 'x-required-abilities';
