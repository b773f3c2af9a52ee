/**
 * The app's routes: one single page served at `/` (the platform app) and `/dashboard` (the
 * developer dashboard). Pure: paths in, a typed route out, so that it is testable without a DOM.
 */

export type PlatformTab = 'apps' | 'discover' | 'inbox' | 'wallet';

export type Route =
  | { area: 'platform'; screen: PlatformTab }
  | { area: 'platform'; screen: 'open'; url: string }
  | { area: 'dashboard'; screen: 'projects' }
  | { area: 'dashboard'; screen: 'project'; projectId: string }
  | { area: 'dashboard'; screen: 'chain' }
  | { area: 'platform' | 'dashboard'; screen: 'notFound'; path: string };

const platformTabs: Record<string, PlatformTab> = {
  '': 'apps',
  apps: 'apps',
  discover: 'discover',
  inbox: 'inbox',
  wallet: 'wallet',
};

/** Parses `pathname` (and `search`, for the mini-app URL) into a route. */
export function parseRoute(pathname: string, search = ''): Route {
  const parts = pathname
    .split('/')
    .filter((p) => p !== '')
    .map(safeDecode);
  if (parts[0] === 'dashboard') {
    if (parts.length === 1) return { area: 'dashboard', screen: 'projects' };
    if (parts[1] === 'chain' && parts.length === 2) return { area: 'dashboard', screen: 'chain' };
    if (parts[1] === 'projects' && parts.length === 2) return { area: 'dashboard', screen: 'projects' };
    if (parts[1] === 'projects' && parts.length === 3 && parts[2] !== '')
      return { area: 'dashboard', screen: 'project', projectId: parts[2] };
    return { area: 'dashboard', screen: 'notFound', path: pathname };
  }
  if (parts.length === 0) return { area: 'platform', screen: 'apps' };
  if (parts.length === 1 && parts[0] === 'open') {
    const url = new URLSearchParams(search).get('url') ?? '';
    if (isHttpUrl(url)) return { area: 'platform', screen: 'open', url };
    return { area: 'platform', screen: 'notFound', path: pathname };
  }
  const tab = parts.length === 1 ? platformTabs[parts[0]] : undefined;
  if (tab) return { area: 'platform', screen: tab };
  return { area: 'platform', screen: 'notFound', path: pathname };
}

/** The path of a route (the inverse of `parseRoute`). */
export function routePath(route: Route): string {
  if (route.screen === 'notFound') return route.path;
  if (route.area === 'dashboard') {
    if (route.screen === 'chain') return '/dashboard/chain';
    if (route.screen === 'project') return `/dashboard/projects/${encodeURIComponent(route.projectId)}`;
    return '/dashboard';
  }
  if (route.screen === 'open') return `/open?url=${encodeURIComponent(route.url)}`;
  return route.screen === 'apps' ? '/' : `/${route.screen}`;
}

/** Only http(s) URLs may be framed: `javascript:` or `data:` in a link would run in our origin. */
export function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

function safeDecode(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}
