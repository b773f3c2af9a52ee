/**
 * App URLs compare after normalization: lower-case scheme and host, no default port, no trailing
 * slash. Registration accepts https, or http on localhost / 127.0.0.1 (local development).
 */

export type AppUrlResult = { ok: true; appUrl: string } | { ok: false; reason: string };

/** Normalizes an app URL as given in a request; `reason` completes "app_url ...". */
export function normalizeAppUrl(input: string): AppUrlResult {
  let url: URL;
  try {
    url = new URL(input.trim());
  } catch {
    return { ok: false, reason: 'must be an absolute http(s) URL' };
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    return { ok: false, reason: 'must be an absolute http(s) URL' };
  }
  if (url.username || url.password) return { ok: false, reason: 'must not carry credentials' };
  // URL already lower-cases scheme and host and drops the scheme's default port.
  let pathname = url.pathname;
  while (pathname.endsWith('/')) pathname = pathname.slice(0, -1);
  return { ok: true, appUrl: `${url.protocol}//${url.host}${pathname}${url.search}` };
}

/** The stricter rule for registering an app URL: https, or http on localhost / 127.0.0.1. */
export function normalizeRegisteredAppUrl(input: string): AppUrlResult {
  const result = normalizeAppUrl(input);
  if (!result.ok) return result;
  const url = new URL(result.appUrl);
  const local = url.hostname === 'localhost' || url.hostname === '127.0.0.1' || url.hostname === '[::1]';
  if (url.protocol === 'http:' && !local) {
    return { ok: false, reason: 'must use https (http only on localhost or 127.0.0.1)' };
  }
  if (url.hash) return { ok: false, reason: 'must not have a fragment' };
  return result;
}
