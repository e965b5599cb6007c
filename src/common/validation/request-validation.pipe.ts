import { ArgumentMetadata, Injectable, ValidationPipe } from '@nestjs/common';
import { ValidationFailedError } from '../errors';
import { isPlainObject } from './rules';
import { mergeBags, nulErrors, toErrorBag } from './validation-errors';

/**
 * The global pipe (APP_PIPE): DTO validation with unknown fields rejected, the contract's 422 body,
 * and a NUL check over the whole request body and query.
 */
@Injectable()
export class RequestValidationPipe extends ValidationPipe {
  constructor() {
    super({
      transform: true,
      whitelist: true,
      forbidNonWhitelisted: true,
      stopAtFirstError: true,
      forbidUnknownValues: true,
      exceptionFactory: (errors) => new ValidationFailedError(toErrorBag(errors)),
    });
  }

  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    const isDto = metadata.metatype && metadata.metatype !== Object && (metadata.type === 'body' || metadata.type === 'query');
    if (!isDto) return super.transform(value, metadata);
    if (metadata.type === 'body' && !isPlainObject(value)) {
      throw ValidationFailedError.of('body', 'The request body must be a JSON object.');
    }
    const nul = nulErrors(value);
    try {
      const result = await super.transform(value, metadata);
      if (Object.keys(nul).length > 0) throw new ValidationFailedError(nul);
      return result;
    } catch (error) {
      if (error instanceof ValidationFailedError && Object.keys(nul).length > 0) {
        throw new ValidationFailedError(mergeBags(error.errors, nul));
      }
      throw error;
    }
  }
}
