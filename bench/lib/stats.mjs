// Figures the long-run benchmarks compute from their samples: percentiles, per-span series (per
// minute over an hour, per few seconds over a short try) and the fitted drift of a memory series.

/** The p-th percentile of an ascending array (nearest rank below); NaN when empty. */
export function percentile(sorted, p) {
  if (!sorted.length) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/**
 * The span a run's series are cut into: a minute from 10 minutes up (the hour run's chart has 60
 * points), else about a twelfth of the run in whole 5 s steps, so a 2-minute try still draws a line.
 */
export function spanFor(seconds) {
  if (seconds >= 600) return 60;
  return Math.max(5, Math.round(seconds / 12 / 5) * 5);
}

/**
 * Latencies per span: `at` (s since the start) and `ms` are parallel arrays (the first `n` entries
 * count). Returns one row per span up to the last one holding a sample, { t (span start), n, p50,
 * p99, max }; a span without samples has n 0 and NaN figures (the chart leaves a gap there).
 */
export function latencyPerSpan(at, ms, n, span) {
  const spans = [];
  for (let k = 0; k < n; k++) {
    const i = Math.max(0, Math.floor(at[k] / span));
    while (spans.length <= i) spans.push([]);
    spans[i].push(ms[k]);
  }
  return spans.map((xs, i) => {
    xs.sort((a, b) => a - b);
    return {
      t: i * span,
      n: xs.length,
      p50: percentile(xs, 50),
      p99: percentile(xs, 99),
      max: xs.length ? xs[xs.length - 1] : Number.NaN,
    };
  });
}

/**
 * Samples { t, ...fields } per span: the mean and max of `field` over the samples in each span
 * (t from 0), one row per span up to the last sample; NaN where a span has none.
 */
export function meanPerSpan(samples, span, field = 'mb') {
  const spans = [];
  for (const s of samples) {
    const v = s[field];
    if (!Number.isFinite(v)) continue;
    const i = Math.max(0, Math.floor(s.t / span));
    while (spans.length <= i) spans.push([]);
    spans[i].push(v);
  }
  return spans.map((xs, i) => ({
    t: i * span,
    n: xs.length,
    mean: xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : Number.NaN,
    max: xs.length ? Math.max(...xs) : Number.NaN,
  }));
}

/**
 * The least-squares line through samples { t, mb }: its slope (MB/s) and its values at the first
 * and the last sample's t. Undefined for fewer than two samples.
 */
export function leastSquares(samples) {
  const n = samples.length;
  if (n < 2) return undefined;
  const mt = samples.reduce((a, r) => a + r.t, 0) / n;
  const mm = samples.reduce((a, r) => a + r.mb, 0) / n;
  let cov = 0;
  let vt = 0;
  for (const r of samples) {
    cov += (r.t - mt) * (r.mb - mm);
    vt += (r.t - mt) ** 2;
  }
  const slope = vt ? cov / vt : 0;
  const at = (t) => mm + slope * (t - mt);
  return { slope, t0: samples[0].t, t1: samples[n - 1].t, from: at(samples[0].t), to: at(samples[n - 1].t) };
}

/**
 * The drift of a memory series after a settling time: the least-squares line over the samples at
 * or after `fromSeconds`, and its rise from the first such sample to the last as a percentage of
 * the line's value at the first (issue 33's "RSS fitted drift after minute 5"). A sawtooth (the
 * GC's phase) averages out; only a trend moves the line. Undefined with fewer than 3 samples.
 */
export function fittedDrift(samples, fromSeconds, field = 'mb') {
  const after = samples
    .filter((s) => s.t >= fromSeconds && Number.isFinite(s[field]))
    .map((s) => ({ t: s.t, mb: s[field] }));
  if (after.length < 3) return undefined;
  const line = leastSquares(after);
  return {
    fromSeconds,
    samples: after.length,
    t0: line.t0,
    t1: line.t1,
    startMb: line.from,
    endMb: line.to,
    percent: ((line.to - line.from) / line.from) * 100,
  };
}
