import { ArgumentMetadata, Injectable, Type, ValidationError, ValidationPipe } from '@nestjs/common';
import type { TransformerPackage } from '@nestjs/common/interfaces/external/transformer-package.interface';
import { ClassTransformOptions, instanceToPlain, plainToInstance } from 'class-transformer';
import { ValidationFailedError } from '../errors';
import { isPlainObject, oversizedLists, verbatimProperties } from './framework';
import { bagOf, mergeBags, requestShapeProblems, toErrorBag } from './validation-errors';

/** The global pipe: DTO validation (unknown fields refused), then one walk for unstorable text, nesting and key counts. */
const HELD = Symbol('verbatim');

/** Bodies walked and found without prototype keys: Nest's own three walks over them are skipped (they cost a PATCH more CPU). */
const walked = new WeakSet<object>();

const transformer: TransformerPackage = {
  plainToInstance<T>(cls: Type<T>, plain: unknown, options?: ClassTransformOptions): T {
    const instance = plainToInstance(cls, plain, options) as Record<string, unknown>;
    const held = (plain as Record<symbol, Record<string, unknown> | undefined>)[HELD];
    if (held) for (const key of Object.keys(held)) instance[key] = held[key];
    if (walked.has(plain as object)) walked.add(instance);
    return instance as T;
  },
  classToPlain: (object, options) => instanceToPlain(object, options),
};

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
      transformerPackage: transformer,
    });
  }

  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    const isDto = metadata.metatype && metadata.metatype !== Object && (metadata.type === 'body' || metadata.type === 'query');
    if (!isDto) return super.transform(value, metadata);
    if (metadata.type === 'body' && !isPlainObject(value)) {
      throw ValidationFailedError.of('body', 'The request body must be a JSON object.');
    }
    const oversized = oversizedLists(value, metadata.metatype);
    if (oversized.length > 0) throw new ValidationFailedError(bagOf(oversized));
    const shape = requestShapeProblems(value);
    // class-transformer and class-validator slow down faster than linearly with width and depth.
    if (shape.tooDeep || shape.tooManyKeys) throw new ValidationFailedError(shape.errors);
    const unstorable = Object.keys(shape.errors).length > 0;
    const held = holdVerbatimFields(value as Record<string, unknown>, metadata.metatype);
    if (!shape.prototypeKeys && typeof held === 'object' && held !== null) walked.add(held);
    try {
      const result: unknown = await super.transform(held, metadata);
      if (unstorable) throw new ValidationFailedError(shape.errors);
      return result;
    } catch (error) {
      if (error instanceof ValidationFailedError && unstorable) {
        throw new ValidationFailedError(mergeBags(error.errors, shape.errors));
      }
      throw error;
    }
  }

  protected override closeArrayGaps(value: unknown): void {
    if (!walked.has(value as object)) super.closeArrayGaps(value);
  }

  protected override stripProtoKeys(value: unknown): void {
    if (!walked.has(value as object)) super.stripProtoKeys(value);
  }

  protected override findNestedBinaryValues(object: unknown, metadataCache?: Map<unknown, unknown[]>): ValidationError[] {
    return walked.has(object as object) ? [] : super.findNestedBinaryValues(object, metadataCache as Map<unknown, never[]>);
  }
}

/** A shallow copy with PlainObject fields set aside under a symbol that Nest's stripping and class-transformer skip. */
function holdVerbatimFields(body: Record<string, unknown>, metatype: object): Record<string | symbol, unknown> {
  const names = verbatimProperties(metatype).filter((name) => Object.hasOwn(body, name) && isPlainObject(body[name]));
  if (names.length === 0) return body;
  const copy: Record<string | symbol, unknown> = { ...body };
  const held: Record<string, unknown> = {};
  for (const name of names) {
    held[name] = body[name];
    delete copy[name];
  }
  copy[HELD] = held;
  return copy;
}
