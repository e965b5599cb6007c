import { applyDecorators, Injectable, PipeTransform } from '@nestjs/common';
import { ApiHeader, ApiParam, type SchemaObject } from '@nestjs/swagger';
import type { IncomingMessage } from 'node:http';
import { AppsService } from '../apps/apps.service';
import { grants } from '../auth/abilities';
import type { AuthContext } from '../auth/auth-context';
import { AccessCheck, RequireAccess } from '../auth/auth.decorators';
import { ValidationFailedError } from '../common/errors';
import { checkString } from '../common/validation/rules';

/** The path parameter of every per-user route (`/api/v1/users/{userId}/...`). */
export const USER_ID_PARAM = 'userId';
export const USER_ID_HASH_HEADER = 'X-User-Id-Hash';

const USER_ID = checkString({ min: 1, max: 255 });

/**
 * Who may act for a user (docs/api.md#user-access): `users:manage` for any user; `users:self` for
 * the user it proves, by `X-User-Id-Hash` while the app has identity verification on.
 */
export async function mayActForUser(
  auth: AuthContext,
  userId: string,
  hash: string | undefined,
  apps: Pick<AppsService, 'userIdHashProblem'>,
): Promise<boolean> {
  if (grants(auth.abilities, 'users:manage')) return true;
  if (!grants(auth.abilities, 'users:self')) return false;
  return (await apps.userIdHashProblem(auth.appId, userId, hash)) === null;
}

/** mayActForUser on the request's `{userId}` and header; AbilitiesGuard asks it, so it answers 403 before any other check. */
@Injectable()
export class UserAccessCheck implements AccessCheck {
  constructor(private readonly apps: AppsService) {}

  allows(auth: AuthContext, req: IncomingMessage & { params?: Record<string, string> }): Promise<boolean> {
    const userId = req.params?.[USER_ID_PARAM];
    if (userId === undefined) return Promise.resolve(false);
    const header = req.headers[USER_ID_HASH_HEADER.toLowerCase()];
    return mayActForUser(auth, userId, typeof header === 'string' ? header : undefined, this.apps);
  }
}

/** The `{userId}` path parameter: 1..255 characters, reported as `user_id`. */
@Injectable()
export class UserIdPipe implements PipeTransform<string, string> {
  transform(value: string): string {
    const problem = USER_ID(value);
    if (problem) throw ValidationFailedError.of('user_id', problem.replaceAll(':attribute', 'user_id'));
    return value;
  }
}

/** A per-user route: its access rule, path parameter and header. The route's module provides UserAccessCheck (UsersModule exports it). */
export const UserRoute = () =>
  applyDecorators(
    RequireAccess(
      UserAccessCheck,
      ['users:manage', 'users:self'],
      'The token has neither `users:manage` nor `users:self` (nor `*`); or, with `users:self` while the app has identity verification on, ' +
        '`X-User-Id-Hash` is missing or does not prove this user.',
    ),
    ApiParam({ name: USER_ID_PARAM, description: 'Your user id, as installations carry it.', schema: USER_ID.schema as SchemaObject, example: 'user-1' }),
    ApiHeader({
      name: USER_ID_HASH_HEADER,
      required: false,
      description:
        "With a `users:self` token while the app has identity verification on: lower-case hex of HMAC-SHA256(the app's identity secret, user_id). " +
        'Ignored otherwise.',
    }),
  );
