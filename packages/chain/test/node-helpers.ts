/** Starts a chain node on 127.0.0.1:0 in a temporary data dir; stop() closes it and removes the dir. */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach } from 'vitest';
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

/**
 * The nodes a test file's tests start and the data directories they make: after each test the
 * nodes are stopped (their data kept: a test may have stopped one itself to restart on it) and
 * the directories removed.
 */
export function cleanUpAfterEach(): { nodes: TestNode[]; dirs: string[] } {
  const nodes: TestNode[] = [];
  const dirs: string[] = [];
  afterEach(async () => {
    for (const n of nodes.splice(0)) await n.stop({ keepData: true }).catch(() => {});
    for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
  });
  return { nodes, dirs };
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

/** Dev account private keys (m/44'/60'/0'/0/i of the test mnemonic), the first four. */
export const DEV_KEYS = [
  '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80',
  '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d',
  '0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a',
  '0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6',
] as const;

export interface ChildNode {
  child: ChildProcess;
  url: string;
  wsUrl: string;
}

const childNodes: ChildProcess[] = [];

/**
 * A chain node in its own process (fixtures-node/child-node.mjs, the built package), for tests
 * that kill -9 it. `env` adds variables (faults such as WHARF_TEST_SLOW_WRITES_MS).
 * killChildNodes() (in afterEach) kills whatever is still running.
 */
export function startChildNode(
  dataDir: string,
  blockTime = 0,
  env: Record<string, string> = {},
): Promise<ChildNode> {
  const fixture = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures-node/child-node.mjs');
  const child = spawn(process.execPath, [fixture, dataDir, String(blockTime)], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, ...env },
  });
  childNodes.push(child);
  return new Promise((resolve, reject) => {
    let buf = '';
    child.stdout!.on('data', (d) => {
      buf += d;
      if (!buf.includes('\n')) return;
      const url = JSON.parse(buf.split('\n')[0]).url as string;
      resolve({ child, url, wsUrl: url.replace('http://', 'ws://') });
    });
    child.on('exit', (code, signal) => reject(new Error(`child exited with ${code ?? signal}`)));
  });
}

export function killChildNodes(): void {
  for (const c of childNodes.splice(0)) c.kill('SIGKILL');
}
