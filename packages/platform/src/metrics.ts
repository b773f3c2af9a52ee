/**
 * The platform server's Prometheus metrics (prom-client), served at GET /metrics: the Node
 * process's defaults (memory, GC, event-loop delay: the names every Node dashboard reads), the
 * HTTP requests by route pattern and status, the notifications stored, and the open live
 * streams. One registry per server (not prom-client's global one), so that several servers in
 * one process (tests, a scale-out run) never mix their counts. Labels carry route patterns and
 * status codes only: no address, key, app URL or id reaches /metrics.
 */
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

export interface PlatformMetrics {
  readonly registry: Registry;
  readonly httpRequests: Counter<'method' | 'route' | 'status'>;
  readonly httpDuration: Histogram<'method' | 'route'>;
  readonly notificationsStored: Counter;
  readonly sendsRecorded: Counter<'sent_by'>;
  /** Reads the open streams when scraped. */
  watchStreams(count: () => number): void;
}

export function createPlatformMetrics(): PlatformMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  let streams = () => 0;
  new Gauge({
    name: 'wharf_platform_open_streams',
    help: 'Open live notification streams (SSE) on this instance.',
    registers: [registry],
    collect() {
      this.set(streams());
    },
  });
  return {
    registry,
    httpRequests: new Counter({
      name: 'wharf_platform_http_requests_total',
      help: 'HTTP requests answered, by method, route pattern (unmatched: no route) and status.',
      labelNames: ['method', 'route', 'status'] as const,
      registers: [registry],
    }),
    httpDuration: new Histogram({
      name: 'wharf_platform_http_request_duration_seconds',
      help: 'Time from request to answer, by method and route pattern (streams: until they end).',
      labelNames: ['method', 'route'] as const,
      buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers: [registry],
    }),
    notificationsStored: new Counter({
      name: 'wharf_platform_notifications_stored_total',
      help: 'Notifications written to inboxes (and pushed live); duplicates within 24 h are not.',
      registers: [registry],
    }),
    sendsRecorded: new Counter({
      name: 'wharf_platform_sends_total',
      help: 'Send requests that reached the delivery path, by who sent (key: the developer API, dashboard: a test send).',
      labelNames: ['sent_by'] as const,
      registers: [registry],
    }),
    watchStreams(count) {
      streams = count;
    },
  };
}
