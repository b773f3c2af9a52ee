/** Starts a chain node on 127.0.0.1:0 in a temporary data dir; stop() closes it and removes the dir. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  type ChainNode,
  type ChainNodeOptions,
  defaultChainNodeOptions,
  startChainNode,
} from '../src/index.js';

export interface TestNode extends ChainNode {
  dataDir: string;
  stop(opts?: { keepData?: boolean }): Promise<void>;
}

export function tempDir(prefix = 'wharf-chain-test-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

export async function startTestNode(options: Partial<ChainNodeOptions> = {}): Promise<TestNode> {
  const dataDir = options.dataDir ?? tempDir();
  const node = await startChainNode({
    ...defaultChainNodeOptions,
    host: '127.0.0.1',
    port: 0,
    blockTime: 0,
    ...options,
    dataDir,
  });
  return {
    ...node,
    dataDir,
    async stop(opts = {}) {
      await node.close();
      if (!opts.keepData) fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

let nextId = 1;
/** One raw JSON-RPC call (body already a string, or an object to encode). */
export async function rpcRaw(
  url: string,
  body: unknown,
): Promise<{ status: number; json: any; text: string }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let json: any;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: res.status, json, text };
}

export async function rpc(url: string, method: string, params: unknown[] = []): Promise<any> {
  const { json } = await rpcRaw(url, { jsonrpc: '2.0', id: nextId++, method, params });
  if (json.error)
    throw Object.assign(new Error(json.error.message), { code: json.error.code, data: json.error.data });
  return json.result;
}

export async function waitFor<T>(fn: () => Promise<T | undefined | null>, timeoutMs = 10_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v !== undefined && v !== null && v !== false) return v;
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 20));
  }
}
