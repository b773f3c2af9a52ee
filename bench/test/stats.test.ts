/**
 * The figures bench/preconf.mjs prints for the hour run (issue 33), on fixed inputs: the per-span
 * series and the RSS drift fitted after the settling time.
 */
import { describe, expect, it } from 'vitest';
import { fittedDrift, latencyPerSpan, meanPerSpan, percentile, spanFor } from '../lib/stats.mjs';

describe('spanFor', () => {
  it('cuts runs of 10 minutes and more per minute, shorter ones into about 12 spans of 5 s steps', () => {
    expect(spanFor(3600)).toBe(60);
    expect(spanFor(600)).toBe(60);
    expect(spanFor(120)).toBe(10);
    expect(spanFor(300)).toBe(25);
    expect(spanFor(30)).toBe(5);
  });
});

describe('percentile', () => {
  it('takes the nearest rank below, and NaN of nothing', () => {
    const xs = Array.from({ length: 100 }, (_, i) => i + 1);
    expect(percentile(xs, 50)).toBe(51);
    expect(percentile(xs, 99)).toBe(100);
    expect(percentile(new Float64Array([3]), 99)).toBe(3);
    expect(percentile([], 50)).toBeNaN();
  });
});

describe('latencyPerSpan', () => {
  it('gives p50/p99/max per span of answer time and leaves an empty span empty', () => {
    // Span 0 (0-60 s): 1..100 ms; span 1: nothing; span 2 (120-180 s): 1,000 ms each.
    const at: number[] = [];
    const ms: number[] = [];
    for (let i = 1; i <= 100; i++) {
      at.push(i * 0.5);
      ms.push(101 - i);
    }
    for (let i = 0; i < 10; i++) {
      at.push(130 + i);
      ms.push(1000);
    }
    ms.push(5); // past n: not counted
    at.push(10);
    const rows = latencyPerSpan(new Float64Array(at), new Float64Array(ms), at.length - 1, 60);
    expect(rows.map((r) => r.t)).toEqual([0, 60, 120]);
    expect(rows[0]).toMatchObject({ n: 100, p50: 51, p99: 100, max: 100 });
    expect(rows[1].n).toBe(0);
    expect(rows[1].p99).toBeNaN();
    expect(rows[2]).toMatchObject({ n: 10, p50: 1000, p99: 1000 });
  });
});

describe('meanPerSpan', () => {
  it('averages a field per span and skips samples without it', () => {
    const samples = [
      { t: 1, mb: 100, anon: 60 },
      { t: 30, mb: 110, anon: Number.NaN },
      { t: 61, mb: 200, anon: 80 },
    ];
    expect(meanPerSpan(samples, 60).map((r) => [r.t, r.n, r.mean, r.max])).toEqual([
      [0, 2, 105, 110],
      [60, 1, 200, 200],
    ]);
    expect(meanPerSpan(samples, 60, 'anon').map((r) => r.n)).toEqual([1, 1]);
  });
});

describe('fittedDrift', () => {
  // An hour, a sample a second: start-up growth in the first 5 minutes (100 -> 200 MB, left out),
  // then a line rising 10 MB over the remaining 3,300 s under a +-20 MB sawtooth (the GC's phase).
  const hour = (rise: number) =>
    Array.from({ length: 3601 }, (_, t) => ({
      t,
      mb: t < 300 ? 100 + t / 3 : 200 + ((t - 300) * rise) / 3300 + (((t % 60) - 30) / 30) * 20,
    }));

  // The sawtooth's edges move the line a little (0.35% here): well inside the 5% the goal allows.
  it('measures the rise after minute 5 as a percentage of the line at its start', () => {
    const d = fittedDrift(hour(10), 300)!;
    expect(d.samples).toBe(3301);
    expect(d.t0).toBe(300);
    expect(d.t1).toBe(3600);
    expect(Math.abs(d.percent - 5)).toBeLessThan(0.5);
    expect(Math.abs(d.startMb - 200)).toBeLessThan(1);
  });

  it('sees no drift in a flat sawtooth, and a fall as negative', () => {
    expect(Math.abs(fittedDrift(hour(0), 300)!.percent)).toBeLessThan(0.5);
    expect(fittedDrift(hour(-20), 300)!.percent).toBeLessThan(-9);
  });

  it('fits another field, and gives nothing with fewer than 3 samples after the start', () => {
    const s = [
      { t: 0, mb: 1, heap: 10 },
      { t: 10, mb: 1, heap: 20 },
      { t: 20, mb: 1, heap: 30 },
    ];
    expect(fittedDrift(s, 0, 'heap')!.percent).toBeCloseTo(200);
    expect(fittedDrift(s, 5, 'heap')).toBeUndefined();
  });
});
