/**
 * The node process's own health on GET /metrics, beside the builder's figures: resident memory,
 * the V8 heap, memory outside the heap, garbage-collection pauses and event-loop delay. These
 * are what an operator looks at when pre-confirmations slow down (a major GC stalls the one
 * thread that builds flashblocks). Names follow prom-client's defaults, so dashboards made for
 * other Node services read them as they are.
 */
import { constants, monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';
import { gauge, Histogram } from './prometheus.js';

const GC_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1];
const GC_KINDS: Record<number, string> = {
  [constants.NODE_PERFORMANCE_GC_MAJOR]: 'major',
  [constants.NODE_PERFORMANCE_GC_MINOR]: 'minor',
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental',
  [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weakcb',
};

export interface ProcessMetrics {
  render(): string;
  stop(): void;
}

export function startProcessMetrics(): ProcessMetrics {
  const gc = new Histogram(
    'nodejs_gc_duration_seconds',
    'Garbage collection pauses, by kind.',
    GC_BUCKETS,
    'kind',
  );
  const observer = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      const kind = GC_KINDS[(e as { detail?: { kind?: number } }).detail?.kind ?? 0] ?? 'other';
      gc.observe(e.duration / 1000, kind);
    }
  });
  observer.observe({ entryTypes: ['gc'] });
  const loop = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();

  return {
    render() {
      const m = process.memoryUsage();
      const seconds = (ns: number) => (Number.isFinite(ns) ? ns / 1e9 : 0);
      const lines = [
        gauge('process_resident_memory_bytes', 'Resident memory size in bytes.', m.rss),
        gauge('nodejs_heap_size_total_bytes', 'V8 heap size in bytes.', m.heapTotal),
        gauge('nodejs_heap_size_used_bytes', 'V8 heap used in bytes.', m.heapUsed),
        gauge(
          'nodejs_external_memory_bytes',
          'Memory of C++ objects bound to JavaScript, in bytes.',
          m.external,
        ),
        gauge('nodejs_array_buffers_bytes', 'Memory of ArrayBuffers and Buffers, in bytes.', m.arrayBuffers),
        gc.render(),
        gauge(
          'nodejs_eventloop_lag_p99_seconds',
          'Event-loop delay, 99th percentile since start.',
          seconds(loop.percentile(99)),
        ),
        gauge(
          'nodejs_eventloop_lag_max_seconds',
          'Event-loop delay, longest since start.',
          seconds(loop.max),
        ),
      ];
      return `${lines.join('\n')}\n`;
    },
    stop() {
      observer.disconnect();
      loop.disable();
    },
  };
}
