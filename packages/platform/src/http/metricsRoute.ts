/**
 * GET /metrics (Prometheus text format) and the hook that counts every answer by route pattern.
 * Like /healthz it needs no token and is not rate limited: an operator's scraper calls it; the
 * figures are counts only (docs/security.md).
 */
import type { FastifyInstance } from 'fastify';
import type { PlatformMetrics } from '../metrics.js';

export function registerMetrics(app: FastifyInstance, metrics: PlatformMetrics): void {
  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? 'unmatched';
    if (route === '/metrics') return;
    metrics.httpRequests.inc({ method: request.method, route, status: String(reply.statusCode) });
    metrics.httpDuration.observe({ method: request.method, route }, reply.elapsedTime / 1000);
  });
  app.get('/metrics', async (_request, reply) => {
    reply.header('content-type', metrics.registry.contentType);
    return metrics.registry.metrics();
  });
}
