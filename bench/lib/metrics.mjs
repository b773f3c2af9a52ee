// Reading the node's GET /metrics (Prometheus text): one helper for every bench that reads it.

/** The node's /metrics text. */
export async function fetchMetrics(url) {
  return (await fetch(`${url}/metrics`)).text();
}

/**
 * The value of the sample `name` in a /metrics text, labels spelt as the text spells them
 * (`nodejs_gc_duration_seconds_count{kind="major"}`); NaN when the node does not report it (an
 * older build).
 */
export function metricValue(text, name) {
  const head = `${name} `;
  const at = text.startsWith(head) ? 0 : text.indexOf(`\n${head}`) + 1;
  if (at === 0 && !text.startsWith(head)) return Number.NaN;
  const end = text.indexOf('\n', at);
  return Number(
    text
      .slice(at + head.length, end < 0 ? undefined : end)
      .trim()
      .split(' ')[0],
  );
}
