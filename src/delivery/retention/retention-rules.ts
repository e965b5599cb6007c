/**
 * The date rules of retention (docs/api.md#data-lifecycle, docs/operations.md "Data retention"): deliveries and
 * notification events are partitioned by week of their notification's start, and a week goes as a
 * whole once every notification in it completed more than RETENTION_DAYS ago.
 */

const DAY_MS = 24 * 60 * 60 * 1000;
/** The width of a partition. Wider: fewer partitions to plan over; narrower: deletion sooner. */
export const WEEK_MS = 7 * DAY_MS;
/** Weeks created ahead of the current one, so a worker that stops for a while finds them there. */
export const WEEKS_AHEAD = 2;

/** One partition as the catalog describes it; `from` null for the one that begins at MINVALUE. */
export interface PartitionRange {
  name: string;
  from: Date | null;
  to: Date;
}

/** Monday 00:00 UTC of the week `at` lies in, as PostgreSQL's date_trunc('week') has it. */
export function weekStart(at: Date): Date {
  const day = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate()));
  const sinceMonday = (day.getUTCDay() + 6) % 7;
  return new Date(day.getTime() - sinceMonday * DAY_MS);
}

/** A week's partition of `table`: `deliveries_p20261123` for the week from Monday 2026-11-23. */
export function partitionName(table: string, from: Date): string {
  return `${table}_p${from.toISOString().slice(0, 10).replace(/-/g, '')}`;
}

/** The weeks (their Mondays) from the current one to WEEKS_AHEAD ahead that no partition covers yet. */
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

/** Notifications that completed before this instant are past retention. */
export function retentionCutoff(now: Date, retentionDays: number): Date {
  return new Date(now.getTime() - retentionDays * DAY_MS);
}

/**
 * Partitions whose every notification started before the cutoff, oldest first: the candidates to
 * drop, each to be checked for notifications unfinished or completed after the cutoff.
 */
export function partitionsDue(partitions: readonly PartitionRange[], cutoff: Date): PartitionRange[] {
  return partitions.filter((p) => p.to.getTime() <= cutoff.getTime()).sort((a, b) => a.to.getTime() - b.to.getTime());
}

/**
 * A due partition that a late notification still holds this long after it became due has its
 * expired notifications deleted row by row: one late send must not keep a whole week past its time.
 * Before that, the week is simply waited for (a send completing a little after its week ended holds
 * it for minutes).
 */
export function heldTooLong(partition: PartitionRange, cutoff: Date): boolean {
  return partition.to.getTime() <= cutoff.getTime() - WEEK_MS;
}
