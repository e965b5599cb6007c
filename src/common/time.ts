import { Injectable } from '@nestjs/common';

export function iso(value: Date | string | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  return (value instanceof Date ? value : new Date(value)).toISOString();
}

/** The time now (ms since the epoch), injected so a test can move it instead of waiting. */
@Injectable()
export class Clock {
  now(): number {
    return Date.now();
  }
}
