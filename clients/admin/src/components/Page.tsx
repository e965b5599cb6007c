import { type ReactNode, useEffect, useRef } from 'react';

/**
 * A page: its heading takes the focus when the page opens (a client-side navigation is otherwise
 * silent for screen readers and leaves the focus on a link that is gone), and names the tab.
 */
export function Page({
  title,
  actions,
  children,
  focusHeading = true,
}: {
  title: string;
  actions?: ReactNode;
  children: ReactNode;
  /** False when the page puts the focus elsewhere itself (the login form, on its first field). */
  focusHeading?: boolean;
}) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = `${title} · Push admin`;
    if (focusHeading) heading.current?.focus();
  }, [title, focusHeading]);
  return (
    <section className="page" aria-labelledby="page-title">
      <header className="page-header">
        <h1 id="page-title" tabIndex={-1} ref={heading}>
          {title}
        </h1>
        {actions ? <div className="page-actions">{actions}</div> : null}
      </header>
      {children}
    </section>
  );
}

/** What a query is doing, said where its content will be. */
export function Loading({ what }: { what: string }) {
  return (
    <p role="status" className="muted">
      Loading {what}…
    </p>
  );
}

export function ErrorNote({ error }: { error: unknown }) {
  return (
    <p role="alert" className="error">
      {error instanceof Error ? error.message : 'Something went wrong.'}
    </p>
  );
}
