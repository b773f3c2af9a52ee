/**
 * The node process's own health on GET /metrics, beside the builder's figures: resident memory,
 * the V8 heap, memory outside the heap, garbage-collection pauses and event-loop delay. These
 * are what an operator looks at when pre-confirmations slow down (a major GC stalls the one
 * thread that builds flashblocks). Names follow prom-client's defaults, so dashboards made for
 * other Node services read them as they are.
 */
import { constants, monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';

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
  const gc = new Map<string, { counts: number[]; sum: number; count: number }>();
  const observer = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      const kind = GC_KINDS[(e as { detail?: { kind?: number } }).detail?.kind ?? 0] ?? 'other';
      const h = gc.get(kind) ?? { counts: GC_BUCKETS.map(() => 0), sum: 0, count: 0 };
      gc.set(kind, h);
      const s = e.duration / 1000;
      h.sum += s;
      h.count++;
      for (let i = 0; i < GC_BUCKETS.length; i++) if (s <= GC_BUCKETS[i]) h.counts[i]++;
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
        ...gauge('process_resident_memory_bytes', 'Resident memory size in bytes.', m.rss),
        ...gauge('nodejs_heap_size_total_bytes', 'V8 heap size in bytes.', m.heapTotal),
        ...gauge('nodejs_heap_size_used_bytes', 'V8 heap used in bytes.', m.heapUsed),
        ...gauge(
          'nodejs_external_memory_bytes',
          'Memory of C++ objects bound to JavaScript, in bytes.',
          m.external,
        ),
        ...gauge(
          'nodejs_array_buffers_bytes',
          'Memory of ArrayBuffers and Buffers, in bytes.',
          m.arrayBuffers,
        ),
        '# HELP nodejs_gc_duration_seconds Garbage collection pauses, by kind.',
        '# TYPE nodejs_gc_duration_seconds histogram',
      ];
      for (const [kind, h] of gc) {
        for (let i = 0; i < GC_BUCKETS.length; i++)
          lines.push(
            `nodejs_gc_duration_seconds_bucket{kind="${kind}",le="${GC_BUCKETS[i]}"} ${h.counts[i]}`,
          );
        lines.push(`nodejs_gc_duration_seconds_bucket{kind="${kind}",le="+Inf"} ${h.count}`);
        lines.push(`nodejs_gc_duration_seconds_sum{kind="${kind}"} ${h.sum}`);
        lines.push(`nodejs_gc_duration_seconds_count{kind="${kind}"} ${h.count}`);
      }
      lines.push(
        ...gauge(
          'nodejs_eventloop_lag_p99_seconds',
          'Event-loop delay, 99th percentile since start.',
          seconds(loop.percentile(99)),
        ),
        ...gauge(
          'nodejs_eventloop_lag_max_seconds',
          'Event-loop delay, longest since start.',
          seconds(loop.max),
        ),
      );
      return `${lines.join('\n')}\n`;
    },
    stop() {
      observer.disconnect();
      loop.disable();
    },
  };
}

function gauge(name: string, help: string, value: number): string[] {
  return [`# HELP ${name} ${help}`, `# TYPE ${name} gauge`, `${name} ${value}`];
}
