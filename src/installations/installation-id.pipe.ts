import { Injectable, PipeTransform } from '@nestjs/common';
import type { SchemaObject } from '@nestjs/swagger';
import { ValidationFailedError } from '../common/errors';
import { checkString } from '../common/validation/rules';

// eslint-disable-next-line no-control-regex -- the pattern exists to refuse NUL
const check = checkString({ min: 1, max: 255, pattern: /^[^\u0000]*$/, patternMessage: 'The :attribute field must not contain NUL characters.' });

/** The OpenAPI schema of the path parameter, from the same check. */
export const INSTALLATION_ID_SCHEMA = check.schema as SchemaObject;

/** The `{installationId}` path parameter: 1..255 characters, reported as `installation_id`. */
@Injectable()
export class InstallationIdPipe implements PipeTransform<string, string> {
  transform(value: string): string {
    const problem = check(value);
    if (problem) throw ValidationFailedError.of('installation_id', problem.replaceAll(':attribute', 'installation_id'));
    return value;
  }
}
