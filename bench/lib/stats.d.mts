// Types of stats.mjs for the TypeScript tests (bench/test).
export interface Sample {
  t: number;
  [field: string]: number;
}
export interface SpanLatency {
  t: number;
  n: number;
  p50: number;
  p99: number;
  max: number;
}
export interface SpanMean {
  t: number;
  n: number;
  mean: number;
  max: number;
}
export interface Drift {
  fromSeconds: number;
  samples: number;
  t0: number;
  t1: number;
  startMb: number;
  endMb: number;
  percent: number;
}
export function percentile(sorted: ArrayLike<number>, p: number): number;
export function spanFor(seconds: number): number;
export function latencyPerSpan(
  at: ArrayLike<number>,
  ms: ArrayLike<number>,
  n: number,
  span: number,
): SpanLatency[];
export function meanPerSpan(samples: Sample[], span: number, field?: string): SpanMean[];
export function leastSquares(
  samples: { t: number; mb: number }[],
): { slope: number; t0: number; t1: number; from: number; to: number } | undefined;
export function fittedDrift(samples: Sample[], fromSeconds: number, field?: string): Drift | undefined;
