// The chart `preconf.mjs` writes beside its results JSON: submit-to-pending p50/p99 per span
// against the 250 ms goal, and the node's memory per span with the fitted drift line (issue 33).
import { svgChart } from './chart.mjs';

const f1 = (x) => (Number.isFinite(x) ? x.toFixed(1) : 'n/a');

/**
 * span: seconds per point; latency: [{ t, p50, p99 }]; rss: [{ t, mean }] (RSS), with optional
 * anon/file/heap rows of the same shape (private memory, mapped files, V8 heap committed);
 * drift: fittedDrift(...) of the RSS samples, or undefined; title: the run's description; rate:
 * the offered transfers/s, marked on a third panel of the pre-confirmed ones per second (a node
 * that fell behind shows there, and the other panels then describe a lighter load).
 * Points sit at the middle of their span; x is in minutes when a span is a minute or more.
 */
export function preconfChartSvg({ span, latency, rss, anon = [], file = [], heap = [], drift, title, rate }) {
  const minutes = span >= 60;
  const x = (t) => (minutes ? (t + span / 2) / 60 : t + span / 2);
  const pts = (rows, key) => rows.map((r) => ({ x: x(r.t), y: r[key] }));
  const memory = [
    { name: 'RSS', color: '#1f77b4', points: pts(rss, 'mean') },
    { name: 'private (anon)', color: '#9467bd', points: pts(anon, 'mean') },
    { name: 'mapped files', color: '#8c564b', points: pts(file, 'mean') },
    // /metrics is read every 10 s: with shorter spans some have no heap sample; join across them.
    {
      name: 'V8 heap committed',
      color: '#2ca02c',
      points: pts(heap, 'mean').filter((p) => Number.isFinite(p.y)),
    },
  ].filter((s) => s.points.some((p) => Number.isFinite(p.y)));
  if (drift)
    memory.push({
      name: `fit from ${minutes ? `${drift.fromSeconds / 60} min` : `${drift.fromSeconds} s`}: ${drift.percent >= 0 ? '+' : ''}${drift.percent.toFixed(1)}%`,
      color: '#d62728',
      dash: '6 4',
      points: [
        { x: minutes ? drift.t0 / 60 : drift.t0, y: drift.startMb },
        { x: minutes ? drift.t1 / 60 : drift.t1, y: drift.endMb },
      ],
    });
  return svgChart({
    title,
    subtitle: drift
      ? `RSS fitted drift after ${drift.fromSeconds} s: ${f1(drift.startMb)} -> ${f1(drift.endMb)} MB (${drift.percent.toFixed(1)}%)`
      : `per ${span} s`,
    xLabel: minutes
      ? `minutes since the load began (one point per ${span / 60} min)`
      : `seconds since the load began (one point per ${span} s)`,
    panels: [
      {
        title: 'submit-to-pending',
        unit: 'ms',
        series: [
          { name: 'p50', color: '#1f77b4', points: pts(latency, 'p50') },
          { name: 'p99', color: '#ff7f0e', points: pts(latency, 'p99') },
        ],
        marks: [{ y: 250, label: 'goal: p99 ≤ 250 ms', color: '#d62728' }],
      },
      { title: 'node memory', unit: 'MB', series: memory },
      {
        title: 'pre-confirmed (measured transfers answered in the span)',
        unit: 'per second',
        series: [
          {
            name: 'pre-confirmed/s',
            color: '#17becf',
            points: latency.map((r) => ({ x: x(r.t), y: r.n / span })),
          },
        ],
        marks: rate ? [{ y: rate, label: `offered: ${rate}/s`, color: '#7f7f7f' }] : [],
      },
    ],
  });
}
