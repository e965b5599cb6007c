import { ArgumentMetadata, Injectable, ValidationPipe } from '@nestjs/common';
import { ValidationFailedError } from '../errors';
import { isPlainObject } from './rules';
import { mergeBags, requestShapeProblems, toErrorBag } from './validation-errors';

/**
 * The global pipe (APP_PIPE): DTO validation with unknown fields rejected, the API's 422 body,
 * and one walk over the whole request body and query for what PostgreSQL cannot store (NUL, lone
 * surrogates) and for absurd nesting.
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
    const shape = requestShapeProblems(value);
    // class-transformer and class-validator recurse: too deep a value must not reach them.
    if (shape.tooDeep) throw new ValidationFailedError(shape.errors);
    const unstorable = Object.keys(shape.errors).length > 0;
    try {
      const result = await super.transform(value, metadata);
      if (unstorable) throw new ValidationFailedError(shape.errors);
      return result;
    } catch (error) {
      if (error instanceof ValidationFailedError && unstorable) {
        throw new ValidationFailedError(mergeBags(error.errors, shape.errors));
      }
      throw error;
    }
  }
}
