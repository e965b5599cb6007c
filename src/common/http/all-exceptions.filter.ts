import { ArgumentsHost, Catch, ExceptionFilter, HttpException, HttpStatus, Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { Request, Response } from 'express';
import { redactUrl } from '../secrets';
import {
  AudienceBusyError,
  AudienceTimedOutError,
  DomainError,
  IdempotencyConflictError,
  NotFoundError,
  reportedErrors,
  StateConflictError,
  ValidationFailedError,
} from '../errors';
import { isStoreUnavailable, RETRY_AFTER_SECONDS } from './unavailable';

interface ErrorResponse {
  status: number;
  body: Record<string, unknown>;
  headers?: Record<string, string>;
}

const MESSAGES: Record<number, string> = {
  400: 'Bad Request.',
  401: 'Unauthenticated.',
  403: 'This action is unauthorized.',
  404: 'Not Found',
  405: 'Method Not Allowed.',
  413: 'Payload Too Large.',
  415: 'Unsupported Media Type.',
  429: 'Too Many Attempts.',
};

const UNAVAILABLE: ErrorResponse = {
  status: 503,
  body: { message: 'Service Unavailable.' },
  headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) },
};

/** The one place an error becomes a response; an unknown one is a bare 500, its details logged under `X-Error-Id`. */
@Catch()
export class AllExceptionsFilter implements ExceptionFilter {
  private readonly logger = new Logger('HTTP');

  catch(exception: unknown, host: ArgumentsHost): void {
    const res = host.switchToHttp().getResponse<Response>();
    const req = host.switchToHttp().getRequest<Request>();
    const { status, body, headers } = this.toResponse(exception, req);
    if (res.headersSent) {
      res.end();
      return;
    }
    res.status(status);
    if (headers) res.set(headers);
    res.json(body);
  }

  toResponse(exception: unknown, req: Request): ErrorResponse {
    if (exception instanceof DomainError) return this.fromDomainError(exception);
    if (exception instanceof HttpException) {
      const status: HttpStatus = exception.getStatus();
      if (status < HttpStatus.INTERNAL_SERVER_ERROR) return this.fromHttpException(exception, status);
      const response = exception.getResponse();
      // Health checks answer 503 with their own report.
      if (status === HttpStatus.SERVICE_UNAVAILABLE && typeof response === 'object' && 'status' in response) {
        return { status, body: response, headers: UNAVAILABLE.headers };
      }
      // Raised on purpose (SchemaGuard): the service cannot answer yet, and says so.
      if (status === HttpStatus.SERVICE_UNAVAILABLE) return UNAVAILABLE;
    }
    if (isStoreUnavailable(exception)) {
      // No stack: during an outage every request lands here, and the cause is the outage.
      this.logger.warn(`Store unavailable on ${req.method} ${redactUrl(req.originalUrl ?? req.url)}: ${describe(exception)}`);
      return UNAVAILABLE;
    }
    // http-errors from Express or body-parser (an undecodable path) that reached Nest.
    const status = clientErrorStatus(exception);
    if (status) return { status, body: { message: MESSAGES[status] ?? 'Bad Request.' } };
    const errorId = randomUUID();
    this.logger.error(
      `Unhandled error ${errorId} on ${req.method} ${redactUrl(req.originalUrl ?? req.url)}: ${describe(exception)}`,
      exception instanceof Error ? exception.stack : undefined,
    );
    return { status: 500, body: { message: 'Server Error.' }, headers: { 'X-Error-Id': errorId } };
  }

  private fromDomainError(error: DomainError): ErrorResponse {
    if (error instanceof ValidationFailedError) return { status: 422, body: { message: error.message, errors: reportedErrors(error.errors) } };
    if (error instanceof NotFoundError) return { status: 404, body: { message: MESSAGES[404] } };
    if (error instanceof IdempotencyConflictError || error instanceof StateConflictError) return { status: 409, body: { message: error.message } };
    // Valid but too costly now: whether a retry helps depends on the load and the data, so no Retry-After.
    if (error instanceof AudienceTimedOutError) return { status: 503, body: { message: error.message } };
    // The same body as the rate limit's: clients match on the status; nothing was run, so retry after a second.
    if (error instanceof AudienceBusyError)
      return { status: 429, body: { message: MESSAGES[429] }, headers: { 'Retry-After': String(error.retryAfterSeconds) } };
    return { status: 500, body: { message: 'Server Error.' } };
  }

  private fromHttpException(exception: HttpException, status: number): ErrorResponse {
    let message = MESSAGES[status];
    if (status === 400 && exception.message === 'Malformed JSON body.') message = exception.message;
    const headers: Record<string, string> = {};
    if (status === 401) headers['WWW-Authenticate'] = 'Bearer';
    return { status, body: { message: message ?? exception.message }, headers };
  }
}

function clientErrorStatus(exception: unknown): number | undefined {
  if (typeof exception !== 'object' || exception === null) return undefined;
  const { status, expose } = exception as { status?: unknown; expose?: unknown };
  return typeof status === 'number' && status >= 400 && status < 500 && expose === true ? status : undefined;
}

function describe(exception: unknown): string {
  if (exception instanceof Error) return `${exception.name}: ${exception.message}`;
  return String(exception);
}
