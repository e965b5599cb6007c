import { Injectable, PipeTransform } from '@nestjs/common';
import type { SchemaObject } from '@nestjs/swagger';
import { ValidationFailedError } from '../common/errors';
import { INSTALLATION_ID } from '../common/validation/domain-rules';

export const INSTALLATION_ID_SCHEMA = INSTALLATION_ID.schema as SchemaObject;

/** The `{installationId}` path parameter: 1..255 characters, reported as `installation_id`. */
@Injectable()
export class InstallationIdPipe implements PipeTransform<string, string> {
  transform(value: string): string {
    const problem = INSTALLATION_ID(value);
    if (problem) throw ValidationFailedError.of('installation_id', problem.replaceAll(':attribute', 'installation_id'));
    return value;
  }
}
