/**
 * A tiny router on history.pushState: `navigate(path)` and `useLocation()`; `Link` renders a real
 * <a href> (so middle-click and copy-link work) that navigates in place on a plain click.
 */
import { useSyncExternalStore } from 'react';

const listeners = new Set<() => void>();
let snapshot = '';

function current(): string {
  const next = location.pathname + location.search;
  if (next !== snapshot) snapshot = next;
  return snapshot;
}

window.addEventListener('popstate', () => {
  for (const l of listeners) l();
});

export function navigate(path: string, options: { replace?: boolean } = {}): void {
  if (path === location.pathname + location.search) return;
  if (options.replace) history.replaceState(null, '', path);
  else history.pushState(null, '', path);
  window.scrollTo(0, 0);
  for (const l of listeners) l();
}

/** `pathname + search` of the page, re-rendering on navigation. */
export function useLocation(): { pathname: string; search: string } {
  const path = useSyncExternalStore((l) => {
    listeners.add(l);
    return () => listeners.delete(l);
  }, current);
  const q = path.indexOf('?');
  return q === -1 ? { pathname: path, search: '' } : { pathname: path.slice(0, q), search: path.slice(q) };
}
