/** Retention's dates (docs/operations.md "Data retention"): deliveries are partitioned by week of their notification's start. */

const DAY_MS = 24 * 60 * 60 * 1000;
export const WEEK_MS = 7 * DAY_MS;
export const WEEKS_AHEAD = 2;

export interface PartitionRange {
  name: string;
  from: Date | null;
  to: Date;
}

/** Monday 00:00 UTC, as date_trunc('week'). */
export function weekStart(at: Date): Date {
  const day = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate()));
  const sinceMonday = (day.getUTCDay() + 6) % 7;
  return new Date(day.getTime() - sinceMonday * DAY_MS);
}

export function partitionName(table: string, from: Date): string {
  return `${table}_p${from.toISOString().slice(0, 10).replace(/-/g, '')}`;
}

export function weeksToCreate(now: Date, existing: readonly PartitionRange[]): Date[] {
  const first = weekStart(now).getTime();
  const missing: Date[] = [];
  for (let week = 0; week <= WEEKS_AHEAD; week++) {
    const from = first + week * WEEK_MS;
    const covered = existing.some((p) => (p.from === null || p.from.getTime() <= from) && p.to.getTime() > from);
    if (!covered) missing.push(new Date(from));
  }
  return missing;
}

export function retentionCutoff(now: Date, retentionDays: number): Date {
  return new Date(now.getTime() - retentionDays * DAY_MS);
}

export function partitionsDue(partitions: readonly PartitionRange[], cutoff: Date): PartitionRange[] {
  return partitions.filter((p) => p.to.getTime() <= cutoff.getTime()).sort((a, b) => a.to.getTime() - b.to.getTime());
}

/** Held this long past due by a late notification, a week's expired ones are deleted row by row: one late send must not keep a week. */
export function heldTooLong(partition: PartitionRange, cutoff: Date): boolean {
  return partition.to.getTime() <= cutoff.getTime() - WEEK_MS;
}
