/**
 * A closed-loop HTTP load generator: `connections` concurrent keep-alive clients, each sending
 * its next request as soon as the previous answered, for `seconds`. Reports requests/s and
 * latency percentiles. It runs on the same cores as the node under test, the same for every peer.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';

/**
 * With wrk installed (Debian's `wrk`), the load comes from wrk (C, 2 threads): a Node client
 * tops out near the peers' speed and would measure itself. Without it, the Node generator below.
 */
export function hasWrk() {
  return spawnSync('wrk', ['--version']).error === undefined;
}

function parseDuration(text) {
  const m = /^([\d.]+)(us|ms|s|m)$/.exec(text);
  if (!m) return Number.NaN;
  return Number(m[1]) * { us: 0.001, ms: 1, s: 1000, m: 60000 }[m[2]];
}

/**
 * `body`: one request body, or an array of them sent in turn (each wrk thread cycles through
 * the list from its start), so a node cannot answer every request from one cached lookup.
 */
export function wrkLoad({ url, body, connections = 64, seconds = 5 }) {
  const script = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'wrk-')), 'post.lua');
  const bodies = Array.isArray(body) ? body : [body];
  // The requests are formatted once, in init: per request wrk only hands out the next string.
  fs.writeFileSync(
    script,
    [
      'wrk.method = "POST"',
      'wrk.headers["Content-Type"] = "application/json"',
      `local bodies = {${bodies.map((b) => JSON.stringify(b)).join(',\n')}}`,
      'local requests = {}',
      'local n = 0',
      'function init(args)',
      '  for i, b in ipairs(bodies) do requests[i] = wrk.format(nil, nil, nil, b) end',
      'end',
      'function request()',
      '  n = n % #requests + 1',
      '  return requests[n]',
      'end',
      '',
    ].join('\n'),
  );

  const r = spawnSync('wrk', ['-t2', `-c${connections}`, `-d${seconds}s`, '--latency', '-s', script, url], {
    encoding: 'utf8',
  });
  fs.rmSync(path.dirname(script), { recursive: true, force: true });
  const out = r.stdout;
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1]);
  const p50 = parseDuration(/\s50%\s+(\S+)/.exec(out)?.[1] ?? '');
  const p99 = parseDuration(/\s99%\s+(\S+)/.exec(out)?.[1] ?? '');
  const errors = Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(out)?.[1] ?? 0);
  return { rps, p50, p99, errors, requests: Number(/(\d+) requests in/.exec(out)?.[1]) };
}

/**
 * CPU time (user + system, all threads) a process has used so far, in µs, from
 * /proc/PID/stat; undefined where there is no /proc (not Linux) or no such process.
 */
export function cpuTimeUs(pid) {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command (which may hold spaces), from field 3 on: utime is 14, stime 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1e6) / 100;
  } catch {
    return undefined;
  }
}

/**
 * `pid`: the node's process; then `cpuPerRequestUs` is the CPU time it used per answered
 * request, a figure the other load on the machine moves less than requests/s.
 */
export async function loadTest({ url, body, connections = 64, seconds = 5, warmupSeconds = 1, pid }) {
  if ((typeof body === 'string' || Array.isArray(body)) && hasWrk()) {
    wrkLoad({ url, body, connections, seconds: warmupSeconds });
    const before = pid === undefined ? undefined : cpuTimeUs(pid);
    const r = wrkLoad({ url, body, connections, seconds });
    const after = pid === undefined ? undefined : cpuTimeUs(pid);
    if (before !== undefined && after !== undefined) r.cpuPerRequestUs = (after - before) / r.requests;
    return r;
  }
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  const target = new URL(url);
  let turn = 0;
  const payload =
    typeof body === 'function' ? body : Array.isArray(body) ? () => body[turn++ % body.length] : () => body;
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
