import { Injectable, PipeTransform } from '@nestjs/common';
import type { SchemaObject } from '@nestjs/swagger';
import { ValidationFailedError } from '../common/errors';
import { TOPIC_KEY } from '../common/validation/domain-rules';

export const TOPIC_KEY_SCHEMA = TOPIC_KEY.schema as SchemaObject;

/** The `{key}` path parameter: 1..64 characters of a-z 0-9 _ -, reported as `key`. */
@Injectable()
export class TopicKeyPipe implements PipeTransform<string, string> {
  transform(value: string): string {
    const problem = TOPIC_KEY(value);
    if (problem) throw ValidationFailedError.of('key', problem.replaceAll(':attribute', 'key'));
    return value;
  }
}
