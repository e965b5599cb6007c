import { BadRequestException, CanActivate, ExecutionContext, Injectable, PayloadTooLargeException, UnsupportedMediaTypeException } from '@nestjs/common';
import { hasBody, isJsonContentType, RequestWithBodyError } from './json-body';

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);

/** Raises deferredJsonBody's problems as the last APP_GUARD (docs/decisions/0009-request-body-errors-in-a-guard.md). */
@Injectable()
export class RequestBodyGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const req = context.switchToHttp().getRequest<RequestWithBodyError>();
    const error = req.bodyError;
    if (error) {
      if (error.type === 'entity.too.large' || error.status === 413) throw new PayloadTooLargeException();
      if (error.status === 415) throw new UnsupportedMediaTypeException();
      throw new BadRequestException('Malformed JSON body.');
    }
    if (BODY_METHODS.has(req.method)) {
      if (hasBody(req) && !isJsonContentType(req.headers['content-type'])) throw new UnsupportedMediaTypeException();
      // A bodiless POST/PUT/PATCH is validated as an empty object.
      if (req.body === undefined) req.body = {};
    }
    return true;
  }
}
