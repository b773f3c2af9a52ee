/**
 * What each fixtures-before-* make.mjs starts with: the build named on its command line (the old
 * version's dist/index.js), that version's node on a fresh data directory with `options`, and a
 * JSON-RPC call to it.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export async function startOldNode(options) {
  const [, , entry] = process.argv;
  const { startChainNode, defaultChainNodeOptions } = await import(entry);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'wharf-fixture-'));
  const node = await startChainNode({
    ...defaultChainNodeOptions,
    host: '127.0.0.1',
    port: 0,
    ...options,
    dataDir,
  });
  const url = node.url ?? `http://127.0.0.1:${node.port}`;
  let id = 1;
  async function rpc(method, params = []) {
    const r = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: id++, method, params }),
    });
    const j = await r.json();
    if (j.error) throw new Error(`${method}: ${j.error.message}`);
    return j.result;
  }
  return { node, dataDir, rpc };
}
