import { Injectable, PipeTransform } from '@nestjs/common';
import { ValidationFailedError } from '../errors';
import { isPlainObject, NOT_ALLOWED } from './framework';
import { bagOf } from './validation-errors';

/** The body of a route that takes none (`POST .../cancel`): absent or `{}`, else a 422 as for an unknown field. */
@Injectable()
export class EmptyBodyPipe implements PipeTransform<unknown, Record<string, never>> {
  transform(value: unknown): Record<string, never> {
    if (value === undefined) return {};
    if (!isPlainObject(value)) throw ValidationFailedError.of('body', 'The request body must be a JSON object.');
    const keys = Object.keys(value);
    if (keys.length > 0) throw new ValidationFailedError(bagOf(keys.map((key) => [key, NOT_ALLOWED])));
    return {};
  }
}
