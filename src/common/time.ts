import { Injectable } from '@nestjs/common';

/** Timestamps (docs/api.md#conventions): ISO 8601 UTC with milliseconds, or null when unset. */
export function iso(value: Date | string | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  return (value instanceof Date ? value : new Date(value)).toISOString();
}

/**
 * The time now, in milliseconds since the epoch. A provider, so a test can move the time a service
 * sees instead of waiting for it to pass.
 */
@Injectable()
export class Clock {
  now(): number {
    return Date.now();
  }
}
