/**
 * A small history router: every page lives under /dashboard/ (the gateway answers index.html for each),
 * links are ordinary <a href> that this intercepts, and the query string carries a page's choices
 * (chain, page number) so that a reload or a shared link shows the same thing.
 */
import { useEffect, useState } from 'preact/hooks';

export const BASE = '/dashboard';

export interface Location {
  /** The path below /dashboard, from '/' */
  path: string;
  query: URLSearchParams;
}

function read(): Location {
  const { pathname, search } = window.location;
  const below = pathname.startsWith(BASE) ? pathname.slice(BASE.length) : pathname;
  const path = below === '' ? '/' : below.replace(/\/+$/, '') || '/';
  return { path, query: new URLSearchParams(search) };
}

const listeners = new Set<() => void>();
window.addEventListener('popstate', () => {
  for (const listener of listeners) listener();
});

/** The full URL of a dashboard path, e.g. href('/tokens') is '/dashboard/tokens'. */
export function href(path: string, query?: Record<string, string | number | undefined>): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query ?? {}))
    if (value !== undefined) params.set(key, String(value));
  const search = params.toString();
  return `${BASE}${path === '/' ? '/' : path}${search ? `?${search}` : ''}`;
}

/** Goes to a dashboard URL (from href) without reloading; `replace` keeps the history entry count. */
export function navigate(url: string, replace = false): void {
  if (url === window.location.pathname + window.location.search) return;
  if (replace) history.replaceState(null, '', url);
  else history.pushState(null, '', url);
  window.scrollTo(0, 0);
  for (const listener of listeners) listener();
}

/** The current location, re-read whenever navigate() or the back button changes it. */
export function useLocation(): Location {
  const [location, setLocation] = useState(read);
  useEffect(() => {
    const update = () => setLocation(read());
    listeners.add(update);
    return () => {
      listeners.delete(update);
    };
  }, []);
  return location;
}

/** Click handler for in-app links: plain left clicks navigate in place; others open as the browser does. */
export function linkClick(event: MouseEvent): void {
  if (event.defaultPrevented || event.button !== 0) return;
  if (event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
  const anchor = (event.target as Element).closest('a');
  if (!anchor || anchor.target || anchor.origin !== window.location.origin) return;
  if (!anchor.pathname.startsWith(BASE)) return;
  event.preventDefault();
  navigate(anchor.pathname + anchor.search);
}
