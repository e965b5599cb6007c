import { formatTime, formatUtc } from '../format';

/** A time in the viewer's zone; hovering (or focusing) it shows UTC. A dash for no time. */
export function Time({ iso }: { iso: string | null | undefined }) {
  if (!iso) return <span aria-label="none">–</span>;
  return (
    <time dateTime={iso} title={formatUtc(iso)}>
      {formatTime(iso)}
    </time>
  );
}
