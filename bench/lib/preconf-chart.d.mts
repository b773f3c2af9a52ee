// Types of preconf-chart.mjs for the TypeScript tests (bench/test).
import type { Drift, SpanLatency, SpanMean } from './stats.mjs';
export function preconfChartSvg(run: {
  span: number;
  latency: SpanLatency[];
  rss: SpanMean[];
  anon?: SpanMean[];
  file?: SpanMean[];
  heap?: SpanMean[];
  drift: Drift | undefined;
  title: string;
  rate?: number;
}): string;
