/**
 * A closed-loop HTTP load generator: `connections` concurrent keep-alive clients, each sending
 * its next request as soon as the previous answered, for `seconds`. Reports requests/s and
 * latency percentiles. It runs on the same cores as the node under test, the same for every peer.
 */
import http from 'node:http';

export async function loadTest({ url, body, connections = 64, seconds = 5, warmupSeconds = 1 }) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  const target = new URL(url);
  const payload = typeof body === 'function' ? body : () => body;
  const send = (data) =>
    new Promise((resolve, reject) => {
      const req = http.request(
        {
          agent,
          host: target.hostname,
          port: target.port,
          path: target.pathname,
          method: 'POST',
          headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(data) },
        },
        (res) => {
          let n = 0;
          res.on('data', (c) => {
            n += c.length;
          });
          res.on('end', () =>
            res.statusCode === 200 ? resolve(n) : reject(new Error(`HTTP ${res.statusCode}`)),
          );
        },
      );
      req.on('error', reject);
      req.end(data);
    });

  const run = async (durationMs, record) => {
    const end = performance.now() + durationMs;
    const latencies = [];
    let errors = 0;
    await Promise.all(
      Array.from({ length: connections }, async () => {
        while (performance.now() < end) {
          const t0 = performance.now();
          try {
            await send(payload());
            if (record) latencies.push(performance.now() - t0);
          } catch {
            errors++;
          }
        }
      }),
    );
    return { latencies, errors };
  };

  await run(warmupSeconds * 1000, false);
  const t0 = performance.now();
  const { latencies, errors } = await run(seconds * 1000, true);
  const elapsed = (performance.now() - t0) / 1000;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const pct = (p) =>
    latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] ?? Number.NaN;
  return { rps: latencies.length / elapsed, p50: pct(50), p99: pct(99), errors, requests: latencies.length };
}

export async function rpc(url, method, params = []) {
  const r = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const j = await r.json();
  if (j.error) throw new Error(`${method}: ${j.error.message}`);
  return j.result;
}

export function table(rows, columns) {
  const widths = columns.map((c) => Math.max(c.length, ...rows.map((r) => String(r[c] ?? '').length)));
  const line = (cells) => cells.map((c, i) => String(c ?? '').padEnd(widths[i])).join('  ');
  return [
    line(columns),
    line(widths.map((w) => '-'.repeat(w))),
    ...rows.map((r) => line(columns.map((c) => r[c]))),
  ].join('\n');
}
