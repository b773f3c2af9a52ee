/**
 * The node process's own health on GET /metrics, beside the builder's figures: resident memory,
 * the V8 heap, memory outside the heap, garbage-collection pauses and event-loop delay. These
 * are what an operator looks at when pre-confirmations slow down (a major GC stalls the one
 * thread that builds flashblocks). Names follow prom-client's defaults, so dashboards made for
 * other Node services read them as they are; the collectors are the node's own (not
 * prom-client's collectDefaultMetrics) so that `stop()` ends them with the node.
 */
import { constants, monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';
import { Gauge, Histogram, type Registry } from 'prom-client';

const GC_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1];
const GC_KINDS: Record<number, string> = {
  [constants.NODE_PERFORMANCE_GC_MAJOR]: 'major',
  [constants.NODE_PERFORMANCE_GC_MINOR]: 'minor',
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental',
  [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weakcb',
};

export interface ProcessMetrics {
  stop(): void;
}

/** Registers the process's metrics in `registry`; read when it is scraped. */
export function startProcessMetrics(registry: Registry): ProcessMetrics {
  const registers = [registry];
  const gc = new Histogram({
    name: 'nodejs_gc_duration_seconds',
    help: 'Garbage collection pauses, by kind.',
    buckets: GC_BUCKETS,
    labelNames: ['kind'],
    registers,
  });
  const observer = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      const kind = GC_KINDS[(e as { detail?: { kind?: number } }).detail?.kind ?? 0] ?? 'other';
      gc.observe({ kind }, e.duration / 1000);
    }
  });
  observer.observe({ entryTypes: ['gc'] });
  const loop = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();

  /** A gauge read when scraped. */
  const gauge = (name: string, help: string, read: () => number) =>
    new Gauge({
      name,
      help,
      registers,
      collect() {
        this.set(read());
      },
    });
  const seconds = (ns: number) => (Number.isFinite(ns) ? ns / 1e9 : 0);
  gauge('process_resident_memory_bytes', 'Resident memory size in bytes.', () => process.memoryUsage.rss());
  gauge('nodejs_heap_size_total_bytes', 'V8 heap size in bytes.', () => process.memoryUsage().heapTotal);
  gauge('nodejs_heap_size_used_bytes', 'V8 heap used in bytes.', () => process.memoryUsage().heapUsed);
  gauge(
    'nodejs_external_memory_bytes',
    'Memory of C++ objects bound to JavaScript, in bytes.',
    () => process.memoryUsage().external,
  );
  gauge(
    'nodejs_array_buffers_bytes',
    'Memory of ArrayBuffers and Buffers, in bytes.',
    () => process.memoryUsage().arrayBuffers,
  );
  gauge('nodejs_eventloop_lag_p99_seconds', 'Event-loop delay, 99th percentile since start.', () =>
    seconds(loop.percentile(99)),
  );
  gauge('nodejs_eventloop_lag_max_seconds', 'Event-loop delay, longest since start.', () =>
    seconds(loop.max),
  );

  return {
    stop() {
      observer.disconnect();
      loop.disable();
    },
  };
}
