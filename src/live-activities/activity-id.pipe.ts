import { Injectable, PipeTransform } from '@nestjs/common';
import type { SchemaObject } from '@nestjs/swagger';
import { ValidationFailedError } from '../common/errors';
import { INSTALLATION_ID } from '../common/validation/domain-rules';

/** The OpenAPI schema of the path parameter: the installation id alphabet (docs/api.md#live-activities). */
export const ACTIVITY_ID_SCHEMA = INSTALLATION_ID.schema as SchemaObject;

/** The `{activityId}` path parameter: 1..255 characters, reported as `activity_id`. */
@Injectable()
export class ActivityIdPipe implements PipeTransform<string, string> {
  transform(value: string): string {
    const problem = INSTALLATION_ID(value);
    if (problem) throw ValidationFailedError.of('activity_id', problem.replaceAll(':attribute', 'activity_id'));
    return value;
  }
}
