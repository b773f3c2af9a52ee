// A small SVG line chart for the benchmarks' long runs (no charting dependency: a few axes,
// polylines and labels are all the hour run's chart needs). Panels share the x axis and stack
// vertically; each has its own y axis from 0, its series, and optional horizontal marks (a goal).

const WIDTH = 960;
const PANEL_HEIGHT = 260;
const LEFT = 72;
const RIGHT = 190; // the legend
const TOP = 76;
const GAP = 54;
const BOTTOM = 48;

/** Text for an SVG text node or attribute. */
export function escapeXml(s) {
  return String(s).replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c],
  );
}

/** Round tick positions from 0 to at least `max`: steps of 1, 2 or 5 times a power of ten. */
export function ticks(max, count = 5) {
  if (!(max > 0) || !Number.isFinite(max)) return [0, 1];
  const raw = max / count;
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= raw);
  const out = [];
  for (let v = 0; v < max + step / 2; v += step) out.push(Number(v.toPrecision(12)));
  if (out[out.length - 1] < max) out.push(Number((out[out.length - 1] + step).toPrecision(12)));
  return out;
}

const label = (v) => (Math.abs(v) >= 1000 ? v.toLocaleString('en-US') : String(v));

/**
 * The SVG document of a chart.
 *   title, subtitle: text at the top; xLabel: the shared x axis's name
 *   panels: [{ title, unit, series: [{ name, color, dash?, points: [{ x, y }] }],
 *              marks?: [{ y, label, color }] }]
 * A point whose y is not finite breaks its line (a span without samples).
 */
export function svgChart({ title, subtitle = '', xLabel, panels }) {
  const allX = panels.flatMap((p) => p.series.flatMap((s) => s.points.map((pt) => pt.x)));
  const xTicks = ticks(allX.length ? Math.max(...allX) : 1, 10);
  const xMax = xTicks[xTicks.length - 1] || 1;
  const plotWidth = WIDTH - LEFT - RIGHT;
  const height = TOP + panels.length * PANEL_HEIGHT + (panels.length - 1) * GAP + BOTTOM;
  const out = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" font-family="sans-serif" font-size="12">`,
    // The title element names the chart for screen readers and viewers (and biome's a11y check).
    `<title>${escapeXml(title)}</title>`,
    `<rect width="${WIDTH}" height="${height}" fill="#fff"/>`,
    `<text x="${LEFT}" y="22" font-size="16" font-weight="bold">${escapeXml(title)}</text>`,
    `<text x="${LEFT}" y="40" fill="#555">${escapeXml(subtitle)}</text>`,
  ];
  panels.forEach((panel, k) => {
    const top = TOP + k * (PANEL_HEIGHT + GAP);
    const ys = panel.series
      .flatMap((s) => s.points.map((pt) => pt.y))
      .concat((panel.marks ?? []).map((m) => m.y))
      .filter(Number.isFinite);
    const yTicks = ticks(ys.length ? Math.max(...ys) : 1);
    const yMax = yTicks[yTicks.length - 1] || 1;
    const px = (x) => (LEFT + (x / xMax) * plotWidth).toFixed(1);
    const py = (y) => (top + PANEL_HEIGHT - (y / yMax) * PANEL_HEIGHT).toFixed(1);
    out.push(`<g class="panel">`);
    out.push(
      `<text x="${LEFT}" y="${top - 8}" font-weight="bold">${escapeXml(panel.title)} (${escapeXml(panel.unit)})</text>`,
    );
    for (const v of yTicks) {
      out.push(
        `<line x1="${LEFT}" x2="${LEFT + plotWidth}" y1="${py(v)}" y2="${py(v)}" stroke="#e5e5e5"/>`,
        `<text x="${LEFT - 6}" y="${py(v)}" text-anchor="end" dominant-baseline="middle" fill="#555">${label(v)}</text>`,
      );
    }
    for (const v of xTicks) {
      out.push(
        `<line x1="${px(v)}" x2="${px(v)}" y1="${top}" y2="${top + PANEL_HEIGHT}" stroke="#f0f0f0"/>`,
        `<text x="${px(v)}" y="${top + PANEL_HEIGHT + 16}" text-anchor="middle" fill="#555">${label(v)}</text>`,
      );
    }
    out.push(
      `<rect x="${LEFT}" y="${top}" width="${plotWidth}" height="${PANEL_HEIGHT}" fill="none" stroke="#999"/>`,
    );
    for (const m of panel.marks ?? []) {
      out.push(
        `<line x1="${LEFT}" x2="${LEFT + plotWidth}" y1="${py(m.y)}" y2="${py(m.y)}" stroke="${m.color}" stroke-dasharray="2 3"/>`,
        `<text x="${LEFT + plotWidth - 4}" y="${Number(py(m.y)) - 4}" text-anchor="end" fill="${m.color}">${escapeXml(m.label)}</text>`,
      );
    }
    panel.series.forEach((s, j) => {
      // One polyline per run of finite points: a gap stays a gap.
      let run = [];
      const flush = () => {
        if (run.length > 1)
          out.push(
            `<polyline class="series" data-name="${escapeXml(s.name)}" fill="none" stroke="${s.color}" stroke-width="2"${s.dash ? ` stroke-dasharray="${s.dash}"` : ''} points="${run.join(' ')}"/>`,
          );
        if (run.length === 1) {
          const [cx, cy] = run[0].split(',');
          out.push(`<circle class="series" cx="${cx}" cy="${cy}" r="3" fill="${s.color}"/>`);
        }
        run = [];
      };
      for (const pt of s.points) {
        if (Number.isFinite(pt.y) && Number.isFinite(pt.x)) run.push(`${px(pt.x)},${py(pt.y)}`);
        else flush();
      }
      flush();
      const ly = top + 10 + j * 18;
      out.push(
        `<line x1="${LEFT + plotWidth + 12}" x2="${LEFT + plotWidth + 36}" y1="${ly}" y2="${ly}" stroke="${s.color}" stroke-width="2"${s.dash ? ` stroke-dasharray="${s.dash}"` : ''}/>`,
        `<text x="${LEFT + plotWidth + 42}" y="${ly}" dominant-baseline="middle">${escapeXml(s.name)}</text>`,
      );
    });
    out.push('</g>');
  });
  out.push(
    `<text x="${LEFT + plotWidth / 2}" y="${height - 12}" text-anchor="middle" fill="#333">${escapeXml(xLabel)}</text>`,
    '</svg>',
    '',
  );
  return out.join('\n');
}
