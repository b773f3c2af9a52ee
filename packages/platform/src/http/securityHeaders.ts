/**
 * Headers of the web app's pages (everything outside /api/): a Content-Security-Policy whose
 * `frame-ancestors 'none'` keeps other sites from framing the app (clickjacking an approval
 * dialog), with the old `X-Frame-Options: DENY` for browsers without it. The app frames mini apps
 * (any http/https origin) and talks to a chain RPC the person may point anywhere, so `frame-src`
 * and `connect-src` stay open to http(s)/ws(s); scripts come only from the app's own files.
 */
import type { FastifyInstance } from 'fastify';

export const appContentSecurityPolicy = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob: http: https:",
  "font-src 'self' data:",
  "connect-src 'self' http: https: ws: wss:",
  'frame-src http: https:',
  "frame-ancestors 'none'",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
].join('; ');

export function installAppSecurityHeaders(app: FastifyInstance): void {
  app.addHook('onSend', async (request, reply, payload) => {
    if (request.url.startsWith('/api/')) return payload;
    reply.header('content-security-policy', appContentSecurityPolicy);
    reply.header('x-frame-options', 'DENY');
    reply.header('x-content-type-options', 'nosniff');
    return payload;
  });
}
