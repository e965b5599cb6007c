import {
  BadRequestException,
  CallHandler,
  ExecutionContext,
  Injectable,
  NestInterceptor,
  PayloadTooLargeException,
  UnsupportedMediaTypeException,
} from '@nestjs/common';
import { Observable } from 'rxjs';
import { hasBody, isJsonContentType, RequestWithBodyError } from './json-body';

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);

/** Raises the body problems that deferredJsonBody recorded; runs after the auth guard. */
@Injectable()
export class RequestBodyInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
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
    return next.handle();
  }
}
