/** Timestamps (docs/api.md#conventions): ISO 8601 UTC with milliseconds, or null when unset. */
export function iso(value: Date | string | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  return (value instanceof Date ? value : new Date(value)).toISOString();
}
