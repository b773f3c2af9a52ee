/**
 * The SVG chart bench/preconf.mjs writes beside its results (issue 33: submit-to-pending p50/p99
 * and RSS per minute over the hour), drawn from fixed series and read back from its markup.
 */
import { describe, expect, it } from 'vitest';
import { escapeXml, svgChart, ticks } from '../lib/chart.mjs';
import { preconfChartSvg } from '../lib/preconf-chart.mjs';
import { fittedDrift, meanPerSpan } from '../lib/stats.mjs';

/** Every element closed in order, every attribute quoted: the file opens in a browser or an editor. */
function wellFormed(svg: string) {
  const stack: string[] = [];
  for (const [tag, close, name, attrs, selfClose] of svg.matchAll(/<(\/?)([a-zA-Z]+)([^>]*?)(\/?)>/g)) {
    expect(attrs.replace(/\s[a-zA-Z0-9-]+="[^"<>]*"/g, '').trim(), tag).toBe('');
    if (selfClose) continue;
    if (close) expect(stack.pop()).toBe(name);
    else stack.push(name);
  }
  expect(stack).toEqual([]);
  expect(svg.replace(/<[^>]*>/g, '')).not.toMatch(/&(?!(amp|lt|gt|quot|apos);)/);
}

/** The polylines of the series named `name`, as lists of [x, y]. */
function lines(svg: string, name: string) {
  return [
    ...svg.matchAll(new RegExp(`<polyline class="series" data-name="${name}"[^>]* points="([^"]+)"`, 'g')),
  ].map(([, pts]) => pts.split(' ').map((p) => p.split(',').map(Number)));
}

describe('ticks', () => {
  it('steps by 1, 2 or 5 times a power of ten from 0 past the maximum', () => {
    expect(ticks(60, 10)).toEqual([0, 10, 20, 30, 40, 50, 60]);
    expect(ticks(347)).toEqual([0, 100, 200, 300, 400]);
    expect(ticks(0.42)).toEqual([0, 0.1, 0.2, 0.3, 0.4, 0.5]);
    expect(ticks(0)).toEqual([0, 1]);
  });
});

describe('svgChart', () => {
  it('escapes text and breaks a line where a point is missing', () => {
    const svg = svgChart({
      title: 'a <b> & "c"',
      xLabel: 'x',
      panels: [
        {
          title: 'p',
          unit: 'ms',
          series: [
            {
              name: 's',
              color: '#000',
              points: [1, 2, Number.NaN, 4, 5, 6].map((y, x) => ({ x, y })),
            },
          ],
        },
      ],
    });
    wellFormed(svg);
    expect(svg).toContain(escapeXml('a <b> & "c"'));
    expect(lines(svg, 's').map((l) => l.length)).toEqual([2, 3]);
  });
});

describe('preconfChartSvg', () => {
  // An hour per minute: p50 150 ms, p99 200 ms except minute 10 at exactly the 250 ms goal and
  // minute 20 without samples; RSS from 1 s samples rising 5% after minute 5.
  const latency = Array.from({ length: 60 }, (_, i) => ({
    t: i * 60,
    n: i === 20 ? 0 : 60_000,
    p50: i === 20 ? Number.NaN : 150,
    p99: i === 20 ? Number.NaN : i === 10 ? 250 : 200,
    max: 300,
  }));
  const samples = Array.from({ length: 3600 }, (_, t) => ({
    t,
    mb: t < 300 ? 120 : 120 + ((t - 300) * 6) / 3300,
    anon: 80,
    file: 40,
  }));
  const drift = fittedDrift(samples, 300)!;
  const svg = preconfChartSvg({
    span: 60,
    latency,
    rss: meanPerSpan(samples, 60),
    anon: meanPerSpan(samples, 60, 'anon'),
    file: meanPerSpan(samples, 60, 'file'),
    drift,
    title: 'an hour',
    rate: 1000,
  });

  it('is a well-formed SVG document with minutes on the x axis', () => {
    wellFormed(svg);
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    expect(svg).toContain('minutes since the load began (one point per 1 min)');
    expect(svg).toContain('>60</text>');
  });

  it('draws p50 and p99 per minute, a gap at the minute without samples, p99 = 250 on the goal line', () => {
    const p99 = lines(svg, 'p99');
    expect(p99.map((l) => l.length)).toEqual([20, 39]);
    const goal = svg.match(/<line[^>]*y1="([\d.]+)"[^>]*stroke="#d62728" stroke-dasharray="2 3"\/>/)!;
    expect(p99[0][10][1]).toBe(Number(goal[1]));
    expect(p99[0][9][1]).toBeGreaterThan(p99[0][10][1]); // 200 ms sits lower on the page
    expect(lines(svg, 'p50').flat()).toHaveLength(59);
    // The points sit mid-minute on an axis of 0-60 min drawn from x = 72 to 770: minute 0 at
    // 0.5 min, minute 59 at 59.5 min.
    expect(p99[0][0][0]).toBeCloseTo(72 + (0.5 / 60) * 698, 0);
    expect(p99[1][p99[1].length - 1][0]).toBeCloseTo(72 + (59.5 / 60) * 698, 0);
  });

  it('draws the RSS per minute and the fitted line from minute 5 with its drift', () => {
    expect(drift.percent).toBeCloseTo(5, 1);
    expect(lines(svg, 'RSS').flat()).toHaveLength(60);
    const fit = lines(svg, 'fit from 5 min: \\+5.0%');
    expect(fit).toHaveLength(1);
    expect(fit[0]).toHaveLength(2);
    expect(fit[0][1][1]).toBeLessThan(fit[0][0][1]); // rises: higher on the page at the end
    expect(svg).toContain('RSS fitted drift after 300 s: 120.0 -&gt; 126.0 MB (5.0%)');
    // The third panel: 60,000 pre-confirmed a minute is the offered 1,000/s, on its mark.
    const perSecond = lines(svg, 'pre-confirmed/s');
    const offered = svg.match(/<line[^>]*y1="([\d.]+)"[^>]*stroke="#7f7f7f" stroke-dasharray="2 3"\/>/)!;
    expect(perSecond[0][0][1]).toBe(Number(offered[1]));
    expect(perSecond[0][20][1]).toBeGreaterThan(perSecond[0][0][1]); // minute 20: none
    // No heap samples were given: no heap series, and no empty legend entry for it.
    expect(svg).not.toContain('V8 heap committed');
  });
});
