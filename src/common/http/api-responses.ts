import { applyDecorators } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiConflictResponse,
  ApiExtraModels,
  ApiNotFoundResponse,
  ApiPayloadTooLargeResponse,
  ApiProperty,
  ApiUnprocessableEntityResponse,
  ApiUnsupportedMediaTypeResponse,
} from '@nestjs/swagger';

/** The error bodies of docs/api.md#errors, as OpenAPI describes them; AllExceptionsFilter produces them. */
export class ErrorResponse {
  @ApiProperty({ description: "The API's fixed message for the status.", example: 'Not Found' })
  message: string;
}

export class ValidationErrorResponse {
  @ApiProperty({
    description: 'The first error, and how many more there are.',
    example: 'The notification.title field is required. (and 1 more error)',
  })
  message: string;

  @ApiProperty({
    description:
      'Messages per dotted snake_case request path (`installation_id` for the path parameter, `idempotency_key` for the header, `body` for the body as a whole).',
    type: 'object',
    additionalProperties: { type: 'array', items: { type: 'string' } },
    example: {
      'notification.title': ['The notification.title field is required.'],
      'recipients.user_ids.3': ['The recipients.user_ids.3 field must not be empty.'],
    },
  })
  errors: Record<string, string[]>;
}

/** Compiles only when A and B have the same keys: response classes stay in step with their mappers. */
export type SameKeys<A, B> = [keyof A] extends [keyof B] ? ([keyof B] extends [keyof A] ? true : false) : false;
export type Expect<T extends true> = T;

const error = (message: string) => ({ type: ErrorResponse, example: { message } });

export const REQUEST_ID_RESPONSE_HEADER = {
  'X-Request-Id': { description: 'The request id (the one sent, or a generated one); it is on every log line of the request.', schema: { type: 'string' } },
};

export const ApiJsonBodyErrors = () =>
  applyDecorators(
    ApiExtraModels(ErrorResponse, ValidationErrorResponse),
    ApiBadRequestResponse({ description: 'The body is not valid JSON.', ...error('Malformed JSON body.') }),
    ApiPayloadTooLargeResponse({ description: 'The body is over 1 MiB.', ...error('Payload Too Large.') }),
    ApiUnsupportedMediaTypeResponse({
      description: 'The body is not `application/json` (or `application/*+json`).',
      ...error('Unsupported Media Type.'),
    }),
    ApiValidationErrors(),
  );

export const ApiValidationErrors = (description = 'Validation failure.') => ApiUnprocessableEntityResponse({ description, type: ValidationErrorResponse });

export const ApiNotFound = (description: string) => ApiNotFoundResponse({ description, ...error('Not Found') });

export const ApiConflict = (description: string, message: string) => ApiConflictResponse({ description, ...error(message) });
