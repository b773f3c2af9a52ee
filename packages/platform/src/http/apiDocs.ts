/**
 * The API reference in the browser: Swagger UI at /api/docs, rendering the OpenAPI document that
 * @fastify/swagger builds from the routes' TypeBox schemas (also at /api/docs/json and
 * /api/v1/openapi.json). "Try it out" calls this same server; the developer endpoints declare
 * the `apiKey` scheme (header x-api-key), entered once under "Authorize".
 *
 * Its assets are served from the package (no CDN; no inline script), under its own
 * Content-Security-Policy, set on every response of this scope, so that a policy written for the
 * web app's pages neither breaks nor loosens this page.
 */
import fastifySwaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';

export const apiDocsPath = '/api/docs';

/** Swagger UI sets styles from script (React), hence 'unsafe-inline' for styles only. */
export const apiDocsCsp = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** The top bar's mark: the product's name (the plugin's default is fastify's logo). */
const logo =
  '<svg xmlns="http://www.w3.org/2000/svg" width="120" height="32" viewBox="0 0 120 32">' +
  '<text x="0" y="24" font-family="system-ui, sans-serif" font-size="24" font-weight="700" fill="#fff">wharf API</text></svg>';

export async function registerApiDocs(app: FastifyInstance): Promise<void> {
  await app.register(fastifySwaggerUi, {
    routePrefix: apiDocsPath,
    staticCSP: apiDocsCsp,
    theme: { title: 'wharf API' },
    logo: { type: 'image/svg+xml', content: Buffer.from(logo) },
    uiConfig: {
      docExpansion: 'list',
      deepLinking: true,
      displayRequestDuration: true,
      tryItOutEnabled: true,
    },
  });
}
