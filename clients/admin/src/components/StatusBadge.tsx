/** A status as a word on a colored pill; the word carries the meaning, the color only helps. */
export function StatusBadge({ status }: { status: string }) {
  return <span className={`badge badge-${status}`}>{status}</span>;
}
