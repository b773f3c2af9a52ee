/** What the security tests measure while they attack a node: its flashblocks and its answers. */
import { rpcRaw } from './node-helpers.js';

/** The node's own count of published flashblocks, and of those more than 50 ms late (GET /metrics). */
export async function flashblockLateness(url: string): Promise<{ total: number; over50ms: number }> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const num = (re: RegExp) => Number(re.exec(text)?.[1] ?? Number.NaN);
  const total = num(/^wharf_flashblock_lateness_seconds_count (\d+)/m);
  const within = num(/^wharf_flashblock_lateness_seconds_bucket\{le="0\.05"\} (\d+)/m);
  return { total, over50ms: total - within };
}

/**
 * Asks eth_blockNumber every `everyMs` until stop() and reports the slowest answer, as a user of
 * the node would see it during an attack.
 */
export function watchBlockNumber(url: string, everyMs = 50) {
  let slowest = 0;
  let answers = 0;
  let failures = 0;
  let running = true;
  const loop = (async () => {
    while (running) {
      const t0 = performance.now();
      const r = await rpcRaw(url, { jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] }).catch(
        () => undefined,
      );
      const ms = performance.now() - t0;
      if (r?.json?.result) answers++;
      else failures++;
      slowest = Math.max(slowest, ms);
      await new Promise((res) => setTimeout(res, everyMs));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return { slowest, answers, failures };
    },
  };
}

/** One JSON-RPC call, timed; resolves with the error or the result. */
export async function timedCall(url: string, method: string, params: unknown[]) {
  const t0 = performance.now();
  const r = await rpcRaw(url, { jsonrpc: '2.0', id: 1, method, params });
  return { ms: performance.now() - t0, status: r.status, result: r.json?.result, error: r.json?.error };
}
