/**
 * The platform's public origin: the one name Sign-In with Ethereum messages must carry (their
 * `domain` and `uri`), and the base of links the server prints. Configured (`--public-url`), or
 * by default the loopback origins the server listens on. Never taken from a request: `Host` and
 * `X-Forwarded-Host` are the caller's to write, so a site that had a victim sign in to
 * `evil.example` could replay the signature with `Host: evil.example` (issue 29, finding 1).
 */

/** Checks and normalizes `--public-url`: an http(s) origin, no path, query or credentials. */
export function parsePublicUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    throw new Error(`expected an http(s) URL such as https://wharf.example.com, got "${text}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new Error(`expected an http or https URL, got "${url.protocol}"`);
  if (url.username || url.password) throw new Error('must not carry a user name or password');
  if ((url.pathname !== '/' && url.pathname !== '') || url.search || url.hash)
    throw new Error(`must be an origin (scheme://host[:port]) without a path, got "${text}"`);
  return url.origin;
}

/** The origins a browser on this machine reaches a server listening on `port` at. */
export function loopbackOrigins(port: number): string[] {
  return [`http://127.0.0.1:${port}`, `http://localhost:${port}`, `http://[::1]:${port}`];
}

/** Whether `host` (a listen address) is only reachable from this machine. */
export function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || host === '::1' || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/**
 * The origin a SIWE message names, if it is one of `origins`: its `domain` must be that
 * origin's host (with port) and its `uri` on that same origin; otherwise why not.
 */
export function matchOrigin(
  origins: readonly string[],
  domain: string,
  uri: string,
): { origin: string } | { error: string } {
  const wanted = origins.find((o) => new URL(o).host === domain.toLowerCase());
  if (!wanted) return { error: `domain ${domain} is not this service (${describe(origins)})` };
  let uriOrigin: string;
  try {
    uriOrigin = new URL(uri).origin;
  } catch {
    return { error: 'uri is not a URL' };
  }
  if (uriOrigin !== wanted) return { error: `uri ${uri} is not on ${wanted}` };
  return { origin: wanted };
}

function describe(origins: readonly string[]): string {
  return origins.map((o) => new URL(o).host).join(', ');
}
