import type { ReactNode } from 'react';

/**
 * A wide table's own scrolling box: on a narrow screen (390 px) the table scrolls sideways inside
 * it while the page itself never does. Focusable, so the keyboard can scroll it too; named, so a
 * screen reader says what the box holds.
 */
export function TableScroll({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="table-scroll" role="region" aria-label={label} tabIndex={0}>
      {children}
    </div>
  );
}
