import { applyDecorators, createParamDecorator, ExecutionContext, SetMetadata, Type } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiExtension,
  ApiForbiddenResponse,
  ApiInternalServerErrorResponse,
  ApiTooManyRequestsResponse,
  ApiUnauthorizedResponse,
} from '@nestjs/swagger';
import { ErrorResponse } from '../common/http/api-responses';
import { ABILITIES_EXTENSION, BEARER_SCHEME } from '../common/openapi-names';
import { Ability } from './abilities';
import type { IncomingMessage } from 'node:http';
import { AuthContext } from './auth-context';

export const ABILITIES_KEY = 'requiredAbilities';
export const ACCESS_CHECK_KEY = 'accessCheck';
export const PUBLIC_KEY = 'publicRoute';

/** A route's own rule beyond abilities, asked by AbilitiesGuard in its place (a 403 when it says no). */
export interface AccessCheck {
  allows(auth: AuthContext, req: IncomingMessage & { params?: Record<string, string> }): Promise<boolean>;
}

/** The abilities a route needs (none: any valid token), documented in OpenAPI with the 401, 403, 429 and 500 it may give. */
export const RequireAbilities = (...abilities: Ability[]) =>
  applyDecorators(
    SetMetadata(ABILITIES_KEY, abilities),
    documentAuth(
      abilities,
      abilities.length ? `The token lacks the ${abilities.map((a) => `\`${a}\``).join(' and ')} ability (or \`*\`).` : 'Never for this route: any ability will do.',
    ),
  );

/** Any valid token, then `check` (an injectable provider of the route's module) decides; `documented` are the abilities it accepts. */
export const RequireAccess = (check: Type<AccessCheck>, documented: Ability[], forbidden: string) =>
  applyDecorators(SetMetadata(ABILITIES_KEY, []), SetMetadata(ACCESS_CHECK_KEY, check), documentAuth(documented, forbidden));

const documentAuth = (abilities: Ability[], forbidden: string) =>
  applyDecorators(
    ApiBearerAuth(BEARER_SCHEME),
    ApiExtension(ABILITIES_EXTENSION, abilities),
    ApiUnauthorizedResponse({
      description: 'No `Authorization: Bearer` token, or an unknown, revoked or expired one.',
      type: ErrorResponse,
      example: { message: 'Unauthenticated.' },
    }),
    ApiForbiddenResponse({
      description: forbidden,
      type: ErrorResponse,
      example: { message: 'This action is unauthorized.' },
    }),
    ApiTooManyRequestsResponse({
      description: 'The token used up its requests for this minute (RATE_LIMIT_PER_MINUTE, shared by all API processes).',
      type: ErrorResponse,
      example: { message: 'Too Many Attempts.' },
      headers: { 'Retry-After': { description: 'Seconds until requests are accepted again.', schema: { type: 'integer' } } },
    }),
    ApiInternalServerErrorResponse({
      description: 'Anything unexpected; the details are only in the log, under the `X-Error-Id` header.',
      type: ErrorResponse,
      example: { message: 'Server Error.' },
      headers: { 'X-Error-Id': { description: 'Find the error in the log by this id.', schema: { type: 'string', format: 'uuid' } } },
    }),
  );

/** No bearer token needed (health checks). */
export const Public = () => SetMetadata(PUBLIC_KEY, true);

export const CurrentAuth = createParamDecorator(
  (_data: unknown, context: ExecutionContext): AuthContext => context.switchToHttp().getRequest<{ user: AuthContext }>().user,
);
