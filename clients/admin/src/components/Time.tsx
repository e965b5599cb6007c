import { formatTime, formatTimeOfDay, formatUtc } from '../format';

/**
 * A time in the viewer's zone; hovering it shows UTC (and, for a `short` one, the local date too).
 * `short`: the time of day only, for dense tables. A dash for no time.
 */
export function Time({ iso, short = false }: { iso: string | null | undefined; short?: boolean }) {
  if (!iso) return <span aria-label="none">–</span>;
  return (
    <time dateTime={iso} title={short ? `${formatTime(iso)} (${formatUtc(iso)})` : formatUtc(iso)}>
      {short ? formatTimeOfDay(iso) : formatTime(iso)}
    </time>
  );
}
