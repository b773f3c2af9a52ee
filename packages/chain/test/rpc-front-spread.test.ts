/**
 * Connections spread over the front threads (docs/decisions/0400-connections-on-front-threads-only.md):
 * with front threads up, the main thread accepts no connection, and a pool of keep-alive
 * connections opened at once (what wrk, viem or a load balancer does) lands on every front
 * thread, not on whichever woke first. Reads on all of them answer, and agree, while blocks are
 * sealed. Front threads that stop unexpectedly leave the main thread accepting again. The worker
 * runs the built package (dist/): `npm run build` first.
 */
import { createRequire, syncBuiltinESMExports } from 'node:module';
import net from 'node:net';
import type { Worker, WorkerOptions } from 'node:worker_threads';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultRpcLimits } from '../src/rpc/limits.js';
import { rpc, startTestNode, type TestNode, waitFor } from './node-helpers.js';

const ACCOUNT = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266';
const CONNECTIONS = 64;

/** A keep-alive connection that sends one request at a time and reads each answer's body. */
class Client {
  private buffered = '';
  private waiting?: (body: string) => void;

  private constructor(private readonly socket: net.Socket) {
    socket.setEncoding('latin1');
    socket.on('data', (d: string) => {
      this.buffered += d;
      const headEnd = this.buffered.indexOf('\r\n\r\n');
      if (headEnd < 0) return;
      const length = Number(/content-length: (\d+)/i.exec(this.buffered.slice(0, headEnd))?.[1]);
      if (this.buffered.length < headEnd + 4 + length) return;
      const body = this.buffered.slice(headEnd + 4, headEnd + 4 + length);
      this.buffered = this.buffered.slice(headEnd + 4 + length);
      this.waiting?.(body);
    });
  }

  static open(port: number): Promise<Client> {
    return new Promise((resolve, reject) => {
      const s = net.connect(port, '127.0.0.1', () => resolve(new Client(s)));
      s.once('error', reject);
    });
  }

  request(body: string): Promise<string> {
    return new Promise((resolve) => {
      this.waiting = resolve;
      this.socket.write(
        `POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
      );
    });
  }

  close(): void {
    this.socket.destroy();
  }
}

/** The open connections of each front thread, from /metrics (on a connection of its own, closed). */
async function openByThread(port: number): Promise<number[]> {
  const text = await new Promise<string>((resolve, reject) => {
    const s = net.connect(port, '127.0.0.1');
    let out = '';
    s.setEncoding('utf8');
    s.on('data', (d) => {
      out += d;
    });
    s.on('end', () => resolve(out));
    s.on('error', reject);
    s.write('GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n');
  });
  const counts: number[] = [];
  for (const m of text.matchAll(/^wharf_rpc_front_thread_open_connections\{thread="(\d+)"\} (\d+)/gm))
    counts[Number(m[1])] = Number(m[2]);
  return counts;
}

describe('connections on the front threads', () => {
  let node: TestNode;
  let port: number;
  beforeAll(async () => {
    // Interval mode: the head moves while the reads go on.
    node = await startTestNode({ blockTime: 1, limits: { ...defaultRpcLimits, threads: 2 } });
    port = Number(new URL(node.url).port);
  });
  afterAll(async () => {
    await node?.stop();
  });

  it('spreads a pool opened at once over both threads; the main thread holds none', async () => {
    const clients = await Promise.all(Array.from({ length: CONNECTIONS }, () => Client.open(port)));
    try {
      const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_getBalance', params: [ACCOUNT] });
      // Every connection is served (and so accepted by then).
      const first = await Promise.all(clients.map((c) => c.request(body)));
      for (const a of first) expect(JSON.parse(a).result).toMatch(/^0x[0-9a-f]+$/);
      const counts = await openByThread(port);
      expect(counts).toHaveLength(2);
      // The metrics request's own connection is open while it is answered: one more somewhere.
      const total = counts[0] + counts[1];
      expect(total, `open connections by thread: ${counts}`).toBeGreaterThanOrEqual(CONNECTIONS);
      expect(total, `open connections by thread: ${counts}`).toBeLessThanOrEqual(CONNECTIONS + 1);
      // Neither thread was left with (nearly) nothing: at least a quarter each.
      for (const n of counts) expect(n, `open connections by thread: ${counts}`).toBeGreaterThanOrEqual(16);
    } finally {
      for (const c of clients) c.close();
    }
  });

  it('answers reads on every connection alike while blocks are sealed', async () => {
    const clients = await Promise.all(Array.from({ length: CONNECTIONS }, () => Client.open(port)));
    try {
      const to = `0x${'cd'.repeat(19)}02`;
      const read = JSON.stringify({
        jsonrpc: '2.0',
        id: 7,
        method: 'eth_getBalance',
        params: [to, 'latest'],
      });
      for (const a of await Promise.all(clients.map((c) => c.request(read))))
        expect(JSON.parse(a)).toEqual({ jsonrpc: '2.0', id: 7, result: '0x0' });
      await rpc(node.url, 'eth_sendTransaction', [{ from: ACCOUNT, to, value: '0x2a' }]);
      // Once one connection reads the block's value, every other reads it too.
      let seen = '0x0';
      for (let i = 0; seen === '0x0' && i < 300; i++) {
        seen = JSON.parse(await clients[i % CONNECTIONS].request(read)).result;
        if (seen === '0x0') await new Promise((r) => setTimeout(r, 20));
      }
      expect(seen).toBe('0x2a');
      for (const a of await Promise.all(clients.map((c) => c.request(read))))
        expect(JSON.parse(a).result).toBe('0x2a');
    } finally {
      for (const c of clients) c.close();
    }
  });
});

describe('front threads that stop unexpectedly', () => {
  it('leave the node serving: the main thread accepts again once none is left', async () => {
    // The front threads' Worker objects, caught as the node starts them.
    const threads = createRequire(import.meta.url)('node:worker_threads') as { Worker: typeof Worker };
    const Original = threads.Worker;
    const fronts: Worker[] = [];
    threads.Worker = class extends Original {
      constructor(file: string | URL, options?: WorkerOptions) {
        super(file, options);
        if (String(file).endsWith('frontWorker.js')) fronts.push(this);
      }
    };
    syncBuiltinESMExports();
    // What the node says of its threads: a failure below names the cause it logged.
    const said: string[] = [];
    const logger = pino({ level: 'warn' }, { write: (line: string) => void said.push(line) });
    let node: TestNode | undefined;
    try {
      node = await startTestNode({ limits: { ...defaultRpcLimits, threads: 2 }, logger });
    } finally {
      threads.Worker = Original;
      syncBuiltinESMExports();
    }
    try {
      expect(fronts).toHaveLength(2);
      const port = Number(new URL(node.url).port);
      expect((await openByThread(port)).filter((n) => n !== undefined)).toHaveLength(2);
      await Promise.all(fronts.map((w) => w.terminate()));
      // New connections are accepted and answered; no front thread is listed any more.
      await waitFor(
        async () => (await rpc(node!.url, 'eth_chainId').catch(() => undefined)) === '0x7a69',
      ).catch((e) => {
        throw new Error(`${e.message}; the node logged: ${said.join('')}`);
      });
      const answers = await Promise.all(
        Array.from({ length: 8 }, () => rpc(node!.url, 'eth_getBalance', [ACCOUNT])),
      );
      for (const a of answers) expect(a).toMatch(/^0x[0-9a-f]+$/);
      expect(await openByThread(port)).toEqual([]);
      // The operator is told, once per thread and once for taking the connections back.
      expect(said.join('')).toContain('a front thread stopped unexpectedly');
      expect(said.join('')).toContain('no front thread is left: the main thread accepts connections again');
    } finally {
      await node.stop();
    }
  });
});
