import type { NotificationOutcome, NotificationStatus } from '../vocabulary';

/** A status as a word on a colored pill; the word carries the meaning, the color only helps. */
export function StatusBadge({ status }: { status: string }) {
  return <span className={`badge badge-${status}`}>{status}</span>;
}

/** How a completed notification went, in words (the API's `outcome`). */
export const OUTCOME_LABELS: Record<NotificationOutcome, string> = {
  delivered: 'completed',
  partly_failed: 'completed with failures',
  failed: 'all failed',
  nothing_sent: 'nothing sent',
};

/**
 * Where a notification stands; once completed, how it went: a send whose every attempt failed, or
 * one with some failures, does not wear the green of a full success.
 */
export function NotificationBadge({ n }: { n: { status: NotificationStatus; outcome: NotificationOutcome | null } }) {
  if (n.status !== 'completed' || n.outcome === null) return <StatusBadge status={n.status} />;
  return <span className={`badge badge-outcome-${n.outcome}`}>{OUTCOME_LABELS[n.outcome]}</span>;
}
