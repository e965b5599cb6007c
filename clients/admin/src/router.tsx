import { type AnchorHTMLAttributes, type MouseEvent, useSyncExternalStore } from 'react';

/**
 * A few routes need no router library: paths under /admin, the History API, and links that are
 * real <a href> (so they open in a new tab, show their target and work with the keyboard).
 */
export const BASE = '/admin';
const CHANGE = 'pns-admin:navigate';

const subscribe = (listener: () => void) => {
  window.addEventListener('popstate', listener);
  window.addEventListener(CHANGE, listener);
  return () => {
    window.removeEventListener('popstate', listener);
    window.removeEventListener(CHANGE, listener);
  };
};
const snapshot = () => window.location.pathname + window.location.search;

/** The current path under /admin ("/apps/…"), with its query string. */
export function useLocation(): { path: string; params: URLSearchParams } {
  const location = useSyncExternalStore(subscribe, snapshot, snapshot);
  const [pathname, search = ''] = location.split('?');
  const path = pathname.startsWith(BASE) ? pathname.slice(BASE.length) || '/' : pathname;
  return { path: path.length > 1 ? path.replace(/\/$/, '') : path, params: new URLSearchParams(search) };
}

export function navigate(to: string, options: { replace?: boolean } = {}): void {
  const url = BASE + to;
  if (options.replace) window.history.replaceState(null, '', url);
  else window.history.pushState(null, '', url);
  window.dispatchEvent(new Event(CHANGE));
  // The new page's heading takes the focus (components/Page.tsx), so screen readers announce it.
}

export function Link({ to, onClick, ...props }: AnchorHTMLAttributes<HTMLAnchorElement> & { to: string }) {
  const handle = (event: MouseEvent<HTMLAnchorElement>) => {
    onClick?.(event);
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    navigate(to);
  };
  return <a href={BASE + to} onClick={handle} {...props} />;
}

/** Matches `path` against a pattern with :params; their decoded values, or null. */
export function match(pattern: string, path: string): Record<string, string> | null {
  const names: string[] = [];
  const regex = new RegExp(`^${pattern.replace(/:(\w+)/g, (_, name: string) => (names.push(name), '([^/]+)'))}$`);
  const found = regex.exec(path);
  if (!found) return null;
  return Object.fromEntries(names.map((name, i) => [name, decodeURIComponent(found[i + 1])]));
}
