/**
 * Chain followers, for real: a sequencer (`wharf chain start`, 2 s blocks, 200 ms flashblocks)
 * and two followers (`wharf chain follow --sequencer URL`), each its own process, under 200
 * transfers a second. Every block the sequencer seals reaches each follower with the same hash
 * within one block time (newHeads on each node); every flashblock the sequencer publishes is
 * re-executed and shown by each follower within 400 ms with the same partial-block hash (each
 * node's own /flashblocks stream, sent as its `pending` switches), and `pending` read over RPC
 * agrees; a transaction sent to a follower is forwarded and pre-confirmed by the sequencer; a
 * follower killed with -9 and restarted on its data dir catches up within 10 s; a follower
 * whose genesis differs refuses to start. WHARF_TEST_FOLLOWER_RATE=N runs another rate.
 */
import { parseEther } from 'viem';
import { mnemonicToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { type Running, startWharf, tempDir, wharf } from './run-cli.js';

/** The sequencer's block time (wharf's default), and the bar for a follower's latest. */
const BLOCK_TIME_MS = 2_000;
/** The bar for a follower's pending: two flashblock intervals after the sequencer's. */
const PENDING_LAG_MS = 400;
const SENDERS = 20;
/** Transfers per second (issue 34: 200). */
const RATE = Number(process.env.WHARF_TEST_FOLLOWER_RATE ?? 200);
const MNEMONIC = 'test test test test test test test test test test test junk';
const accounts = Array.from({ length: SENDERS }, (_, i) => mnemonicToAccount(MNEMONIC, { addressIndex: i }));

let nextId = 1;
async function rpc<T = any>(url: string, method: string, params: unknown[] = []): Promise<T> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, params }),
  });
  const body = (await res.json()) as { result?: T; error?: { code: number; message: string } };
  if (body.error) throw Object.assign(new Error(body.error.message), { code: body.error.code });
  return body.result as T;
}

/**
 * JSON-RPC over one WebSocket (the load's sends): a socket carries 200 requests a second at a
 * fraction of what as many HTTP requests cost this process and the node, so the load measures the
 * nodes, not the generator.
 */
async function wsClient(url: string) {
  const ws = new WebSocket(url.replace(/^http/, 'ws'));
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  const waiting = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  let id = 0;
  ws.on('message', (data) => {
    const m = JSON.parse(data.toString()) as { id: number; result?: unknown; error?: { message: string } };
    const w = waiting.get(m.id);
    if (!w) return;
    waiting.delete(m.id);
    if (m.error) w.reject(new Error(m.error.message));
    else w.resolve(m.result);
  });
  return {
    call(method: string, params: unknown[]) {
      const n = ++id;
      return new Promise((resolve, reject) => {
        waiting.set(n, { resolve, reject });
        ws.send(JSON.stringify({ jsonrpc: '2.0', id: n, method, params }));
      });
    },
    close: () => ws.terminate(),
  };
}

/**
 * What a node showed, as seen from here: each sealed block (newHeads) and each flashblock of
 * its own /flashblocks stream (keyed by block, index and partial-block hash), with arrival times.
 */
function watch(url: string) {
  const heads = new Map<string, { number: number; at: number }>();
  const flashblocks = new Map<string, { index: number; txs: number; at: number }>();
  const ws = url.replace(/^http/, 'ws');
  const stream = new WebSocket(`${ws}/flashblocks`);
  const subs = new WebSocket(ws);
  stream.on('message', (data) => {
    const at = Date.now();
    const m = JSON.parse(data.toString()) as {
      index: number;
      diff: { block_hash: string; transactions: string[] };
      metadata: { block_number: number };
    };
    const key = `${m.metadata.block_number}:${m.index}:${m.diff.block_hash}`;
    if (!flashblocks.has(key)) flashblocks.set(key, { index: m.index, txs: m.diff.transactions.length, at });
  });
  subs.on('open', () =>
    subs.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_subscribe', params: ['newHeads'] })),
  );
  subs.on('message', (data) => {
    const at = Date.now();
    const m = JSON.parse(data.toString()) as { params?: { result: { hash: string; number: string } } };
    const h = m.params?.result;
    if (h && !heads.has(h.hash)) heads.set(h.hash, { number: Number(h.number), at });
  });
  const opened = (s: WebSocket) =>
    new Promise((resolve, reject) => s.once('open', resolve).once('error', reject));
  const w = {
    heads,
    flashblocks,
    closedAt: 0,
    ready: Promise.all([opened(stream), opened(subs)]),
    close() {
      w.closedAt = Date.now();
      stream.terminate();
      subs.terminate();
    },
  };
  return w;
}

interface Node {
  url: string;
  running: Running;
  dataDir: string;
}

async function startSequencer(): Promise<Node> {
  const dataDir = tempDir('wharf-seq-');
  const running = await startWharf(
    [
      'chain',
      'start',
      '--port',
      '0',
      '--data-dir',
      dataDir,
      '--block-time',
      String(BLOCK_TIME_MS / 1000),
      '--accounts',
      String(SENDERS),
    ],
    /Chain RPC\s+http/,
    30_000,
  );
  return { url: /Chain RPC\s+(http:\/\/\S+)/.exec(running.stdout())![1]!, running, dataDir };
}

async function startFollower(sequencer: string, dataDir = tempDir('wharf-follow-')): Promise<Node> {
  const running = await startWharf(
    [
      'chain',
      'follow',
      '--sequencer',
      sequencer,
      '--port',
      '0',
      '--data-dir',
      dataDir,
      '--accounts',
      String(SENDERS),
    ],
    /Follower\s+http/,
    30_000,
  );
  return { url: /Follower\s+(http:\/\/\S+)/.exec(running.stdout())![1]!, running, dataDir };
}

async function stop(node: Node): Promise<void> {
  if (node.running.child.exitCode !== null || node.running.child.signalCode !== null) return;
  node.running.child.kill('SIGTERM');
  await node.running.exited;
}

describe('a sequencer and two followers under load', () => {
  let sequencer: Node;
  const followers: Node[] = [];

  beforeAll(async () => {
    sequencer = await startSequencer();
    followers.push(await startFollower(sequencer.url), await startFollower(sequencer.url));
  }, 90_000);

  afterAll(async () => {
    for (const f of followers) await stop(f);
    if (sequencer) await stop(sequencer);
  }, 30_000);

  it("keeps each follower's latest and pending on the sequencer's, pre-confirms what a follower forwards, and catches up a follower killed with -9", async () => {
    const nonces = await Promise.all(
      accounts.map(async (a) =>
        Number(await rpc<string>(sequencer.url, 'eth_getTransactionCount', [a.address, 'pending'])),
      ),
    );
    const nodes = [sequencer, ...followers];

    // RATE transfers per second for 8 s from twenty senders, signed beforehand and sent on
    // schedule over one WebSocket per node without waiting for the previous answer; every 5th
    // through a follower, which forwards it to the sequencer.
    const durationMs = 8_000;
    const intervalMs = (1000 * SENDERS) / RATE;
    const perSender = Math.floor(durationMs / intervalMs);
    const signed = await Promise.all(
      accounts.map((account, i) =>
        Promise.all(
          Array.from({ length: perSender }, () =>
            account.signTransaction({
              to: `0x${(0xf011000 + i).toString(16).padStart(40, '0')}`,
              value: parseEther('0.0001'),
              nonce: nonces[i]!++,
              gas: 21_000n,
              maxFeePerGas: 10_000_000_000n,
              maxPriorityFeePerGas: 1n,
              chainId: 31337,
              type: 'eip1559',
            }),
          ),
        ),
      ),
    );
    const clients = new Map<string, Awaited<ReturnType<typeof wsClient>>>();
    for (const n of nodes) clients.set(n.url, await wsClient(n.url));
    // What each node showed, and when: sealed blocks (newHeads) and flashblocks (its own stream).
    // Watched only once the signing above is done: signing 1,600 transfers holds this process's
    // event loop for seconds, and a flashblock arriving meanwhile would be stamped late here (a
    // 522 ms "lag" on an idle flashblock in one CI run), measuring this process, not the nodes.
    const watches = nodes.map((n) => watch(n.url));
    await Promise.all(watches.map((w) => w.ready));
    const start = Date.now();
    let sent = 0;
    let viaFollowers = 0;
    const answers: Promise<unknown>[] = [];
    const sendMs: number[] = [];
    const failures: string[] = [];
    await Promise.all(
      signed.map(async (list, i) => {
        for (const [k, raw] of list.entries()) {
          const due = start + k * intervalMs + (i * intervalMs) / SENDERS;
          if (due > Date.now()) await new Promise((r) => setTimeout(r, due - Date.now()));
          const through = (k + i) % 5 === 4 ? followers[(k + i) % 2]!.url : sequencer.url;
          if (through !== sequencer.url) viaFollowers++;
          const t0 = Date.now();
          answers.push(
            clients
              .get(through)!
              .call('eth_sendRawTransaction', [raw])
              .then(
                () => sendMs.push(Date.now() - t0),
                (e) =>
                  failures.push(
                    `${through === sequencer.url ? 'sequencer' : 'follower'}: ${(e as Error).message}`,
                  ),
              ),
          );
          sent++;
        }
      }),
    );
    const rate = sent / ((Date.now() - start) / 1000);
    await Promise.all(answers);
    for (const c of clients.values()) c.close();
    sendMs.sort((x, y) => x - y);
    console.log(
      `sends: p50 ${sendMs[Math.floor(sendMs.length / 2)]} ms, max ${sendMs[sendMs.length - 1]} ms; failures ${failures.length}: ${failures.slice(0, 3).join('; ')}`,
    );
    expect(failures).toEqual([]);

    // A transaction sent to a follower is pre-confirmed by the sequencer: the sync variant answers
    // with its receipt before the block is sealed, and the follower shows it at pending.
    const a0 = accounts[0]!;
    const syncRaw = await a0.signTransaction({
      to: '0x000000000000000000000000000000000000f011',
      value: 1n,
      nonce: nonces[0]!++,
      gas: 21_000n,
      maxFeePerGas: 10_000_000_000n,
      maxPriorityFeePerGas: 1n,
      chainId: 31337,
      type: 'eip1559',
    });
    const receipt = await rpc<{ status: string; blockNumber: string; transactionHash: string }>(
      followers[0]!.url,
      'eth_sendRawTransactionSync',
      [syncRaw],
    );
    const answeredAt = Date.now();
    expect(receipt.status).toBe('0x1');
    const preconfirmed = await rpc<{ blockHash: string } | null>(sequencer.url, 'eth_getTransactionReceipt', [
      receipt.transactionHash,
    ]);
    expect(preconfirmed).not.toBeNull();
    const receiptLags: number[] = [];
    for (const f of followers) {
      for (;;) {
        const r = await rpc(f.url, 'eth_getTransactionReceipt', [receipt.transactionHash]);
        if (r || Date.now() - answeredAt > 10 * PENDING_LAG_MS) break;
        await new Promise((r) => setTimeout(r, 10));
      }
      receiptLags.push(Date.now() - answeredAt);
    }

    await new Promise((r) => setTimeout(r, BLOCK_TIME_MS + PENDING_LAG_MS));
    for (const w of watches) w.close();
    const [bySequencer, ...byFollowers] = watches;

    // Every block the sequencer sealed meanwhile, with the same hash on each follower, within
    // one block time; every flashblock it published, shown by each follower within 400 ms.
    const blockLags: number[] = [];
    const worst: { key: string; ms: number; txs: number }[] = [];
    const flashLags: number[] = [];
    let flashblocksWithTxs = 0;
    for (const [i, fw] of byFollowers.entries()) {
      for (const [hash, s] of bySequencer!.heads) {
        if (s.at > bySequencer!.closedAt - BLOCK_TIME_MS) continue; // too late to be due
        const f = fw.heads.get(hash);
        if (!f) throw new Error(`follower ${i} never showed block ${s.number} (${hash})`);
        blockLags.push(f.at - s.at);
      }
      for (const [key, s] of bySequencer!.flashblocks) {
        if (s.index === 0 || s.at > bySequencer!.closedAt - PENDING_LAG_MS) continue;
        if (i === 0 && s.txs > 0) flashblocksWithTxs++;
        const f = fw.flashblocks.get(key);
        if (!f) throw new Error(`follower ${i} never showed flashblock ${key} (${s.txs} transactions)`);
        flashLags.push(f.at - s.at);
        worst.push({ key, ms: f.at - s.at, txs: s.txs });
      }
    }
    const stats = (xs: number[]) => {
      xs.sort((x, y) => x - y);
      const p = (q: number) => xs[Math.min(xs.length - 1, Math.floor(q * xs.length))]!;
      return `p50 ${p(0.5)} ms, p99 ${p(0.99)} ms, max ${xs[xs.length - 1]} ms over ${xs.length}`;
    };
    console.log(
      `followers: ${sent} transfers at ${rate.toFixed(0)}/s (${viaFollowers} through followers); latest behind the sequencer's: ${stats(blockLags)} blocks; pending behind: ${stats(flashLags)} flashblocks (${flashblocksWithTxs} with transactions)`,
    );
    worst.sort((x, y) => y.ms - x.ms);
    console.log(
      `slowest flashblocks on a follower (block:index, ms, transactions): ${worst
        .slice(0, 5)
        .map((w) => `${w.key.split(':').slice(0, 2).join(':')} ${w.ms} ms ${w.txs}`)
        .join('; ')}`,
    );
    console.log(
      `the forwarded transaction's receipt on each follower after the sequencer's answer: ${receiptLags.join(', ')} ms`,
    );
    // The claim is about this load: the generator must have delivered it.
    expect(rate).toBeGreaterThan(RATE * 0.9);
    expect(flashblocksWithTxs).toBeGreaterThan(20);
    expect(Math.max(...blockLags)).toBeLessThanOrEqual(BLOCK_TIME_MS);
    expect(Math.max(...flashLags)).toBeLessThanOrEqual(PENDING_LAG_MS);
    expect(Math.max(...receiptLags)).toBeLessThanOrEqual(PENDING_LAG_MS);

    // And read over RPC, once the load is over: a transfer the sequencer pre-confirms is in each
    // follower's pending block within 400 ms, and their pending transactions are the sequencer's.
    const quietRaw = await accounts[1]!.signTransaction({
      to: '0x000000000000000000000000000000000000f013',
      value: 1n,
      nonce: nonces[1]!++,
      gas: 21_000n,
      maxFeePerGas: 10_000_000_000n,
      maxPriorityFeePerGas: 1n,
      chainId: 31337,
      type: 'eip1559',
    });
    const quiet = await rpc<{ transactionHash: string }>(sequencer.url, 'eth_sendRawTransactionSync', [
      quietRaw,
    ]);
    const shownAt = Date.now();
    const seqPending = await rpc<{ number: string; transactions: string[] }>(
      sequencer.url,
      'eth_getBlockByNumber',
      ['pending', false],
    );
    // If the transfer went into the block's last flashblock, the seal can follow before a
    // follower is first asked: it is then in the follower's latest block, no longer pending.
    const ZERO_HASH = `0x${'0'.repeat(64)}`;
    for (const f of followers) {
      for (;;) {
        const theirs = await rpc<{ number: string; transactions: string[] }>(f.url, 'eth_getBlockByNumber', [
          'pending',
          false,
        ]);
        if (theirs.transactions.includes(quiet.transactionHash)) {
          if (theirs.number === seqPending.number)
            expect(theirs.transactions).toEqual(seqPending.transactions);
          break;
        }
        const sealed = await rpc<{ blockHash: string } | null>(f.url, 'eth_getTransactionReceipt', [
          quiet.transactionHash,
        ]);
        if (sealed && sealed.blockHash !== ZERO_HASH) {
          const block = await rpc<{ transactions: string[] }>(f.url, 'eth_getBlockByHash', [
            sealed.blockHash,
            false,
          ]);
          expect(block.transactions).toContain(quiet.transactionHash);
          console.log(
            `the quiet transfer was sealed before the follower was asked (block ${sealed.blockHash})`,
          );
          break;
        }
        expect(
          Date.now() - shownAt,
          `the quiet transfer is not in this follower's pending block nor sealed`,
        ).toBeLessThan(PENDING_LAG_MS);
        await new Promise((r) => setTimeout(r, 10));
      }
    }

    // kill -9 a follower, keep the sequencer busy, restart it on its data dir: caught up in 10 s.
    const victim = followers[1]!;
    victim.running.child.kill('SIGKILL');
    await victim.running.exited;
    for (let k = 0; k < 100; k++) {
      const account = accounts[k % accounts.length]!;
      const raw = await account.signTransaction({
        to: '0x000000000000000000000000000000000000f012',
        value: 1n,
        nonce: nonces[k % accounts.length]!++,
        gas: 21_000n,
        maxFeePerGas: 10_000_000_000n,
        maxPriorityFeePerGas: 1n,
        chainId: 31337,
        type: 'eip1559',
      });
      await rpc(sequencer.url, 'eth_sendRawTransaction', [raw]);
    }
    await new Promise((r) => setTimeout(r, 2 * BLOCK_TIME_MS));
    const restartAt = Date.now();
    const restarted = await startFollower(sequencer.url, victim.dataDir);
    followers[1] = restarted;
    for (;;) {
      const [s, f] = await Promise.all([
        rpc<{ number: string; hash: string }>(sequencer.url, 'eth_getBlockByNumber', ['latest', false]),
        rpc<{ number: string; hash: string }>(restarted.url, 'eth_getBlockByNumber', ['latest', false]),
      ]);
      if (Number(f.number) >= Number(s.number)) {
        const same = await rpc<{ hash: string }>(sequencer.url, 'eth_getBlockByNumber', [f.number, false]);
        expect(f.hash).toBe(same.hash);
        break;
      }
      expect(Date.now() - restartAt).toBeLessThan(10_000);
      await new Promise((r) => setTimeout(r, 50));
    }
    console.log(`follower restarted after kill -9 caught up in ${Date.now() - restartAt} ms`);
  }, 180_000);

  it('refuses to follow a sequencer whose genesis it cannot reproduce', () => {
    const r = wharf([
      'chain',
      'follow',
      '--sequencer',
      sequencer.url,
      '--port',
      '0',
      '--data-dir',
      tempDir('wharf-follow-bad-'),
      '--accounts',
      String(SENDERS),
      '--balance',
      '1',
    ]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/genesis .* is not the sequencer's/);
  });
});
