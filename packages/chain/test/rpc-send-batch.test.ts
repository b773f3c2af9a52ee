/**
 * A JSON-RPC batch of eth_sendRawTransaction: the node decodes each transaction and starts its
 * sender's recovery ahead of its turn (Method.prepare), and still answers every request exactly as
 * it answers the same request alone, in the batch's order: the same hashes, the same refusals
 * (bad hex, empty, undecodable, wrong chain, duplicate, unrecoverable signature, fee below the
 * base fee), and the pool takes them in order.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { hexToBytes, keccak256, parseEther, serializeTransaction, toHex } from 'viem';
import { privateKeyToAccount, sign } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nativeEcrecover } from '../src/crypto/ecrecover.js';
import { defaultRpcLimits } from '../src/rpc/limits.js';
import { DEV_KEYS, rpc, rpcRaw, startTestNode, type TestNode } from './node-helpers.js';

const TO = '0x00000000000000000000000000000000000b47c8';

function transfer(nonce: number, over: { chainId?: number; maxFeePerGas?: bigint } = {}) {
  return {
    type: 'eip1559',
    chainId: over.chainId ?? 31337,
    to: TO,
    value: parseEther('0.001'),
    nonce,
    gas: 21_000n,
    maxFeePerGas: over.maxFeePerGas ?? 10_000_000_000n,
    maxPriorityFeePerGas: 1n,
  } as const;
}

/** A transfer whose signature is well formed but recovers no key (r is no point's x). */
async function unrecoverable(): Promise<`0x${string}`> {
  const fields = transfer(0);
  const msgHash = hexToBytes(keccak256(serializeTransaction(fields)));
  const sig = await sign({ hash: toHex(msgHash), privateKey: DEV_KEYS[2] });
  let s = hexToBytes(sig.s);
  while (s[0] === 0) s = s.subarray(1);
  for (let x = 1; ; x++) {
    try {
      nativeEcrecover(msgHash, 0n, new Uint8Array([x]), s);
    } catch {
      return serializeTransaction(fields, { r: toHex(new Uint8Array([x])), s: sig.s, yParity: 0 });
    }
  }
}

let batched: TestNode;
let alone: TestNode;
beforeAll(async () => {
  // Not mining: what was accepted stays in the pool, in order, for both nodes alike.
  [batched, alone] = await Promise.all([startTestNode({ mining: false }), startTestNode({ mining: false })]);
});
afterAll(async () => {
  await Promise.all([batched?.stop(), alone?.stop()]);
});

describe('a batch of eth_sendRawTransaction', () => {
  it('is answered request by request as each alone, in order, refusals included', async () => {
    const a = privateKeyToAccount(DEV_KEYS[0]);
    const b = privateKeyToAccount(DEV_KEYS[1]);
    const first = await a.signTransaction(transfer(0));
    const params: unknown[] = [
      first,
      await a.signTransaction(transfer(1)),
      first, // already known
      await b.signTransaction(transfer(0, { chainId: 1 })), // another chain
      '0x', // empty
      '0xzz', // not hex
      12345, // not a string
      toHex(randomBytes(64)), // not a transaction
      await unrecoverable(),
      await b.signTransaction(transfer(0, { maxFeePerGas: 1n })), // below the base fee
      await b.signTransaction(transfer(3)), // a nonce gap: queued
      await a.signTransaction(transfer(2)),
      ...(await Promise.all(Array.from({ length: 100 }, (_, i) => a.signTransaction(transfer(3 + i))))),
    ];
    const requests = params.map((p, id) => ({
      jsonrpc: '2.0',
      id,
      method: 'eth_sendRawTransaction',
      params: [p],
    }));
    // Another method in between: only the sends are prepared, everything runs in order.
    requests.splice(5, 0, { jsonrpc: '2.0', id: 'chain', method: 'eth_chainId', params: [] } as never);

    const { json: answers } = await rpcRaw(batched.url, requests);
    const one: unknown[] = [];
    for (const r of requests) one.push((await rpcRaw(alone.url, r)).json);
    expect(answers).toEqual(one);

    // And what they are (so that the two nodes cannot agree on something else).
    const byId = new Map((answers as { id: unknown }[]).map((x) => [x.id, x as any]));
    expect(byId.get(0).result).toBe(keccak256(first));
    expect(byId.get(2).error).toEqual({ code: -32000, message: 'already known' });
    expect(byId.get(3).error.message).toBe('invalid chain id for signer: have 1 want 31337');
    expect(byId.get(4).error).toMatchObject({
      code: -32602,
      message: expect.stringMatching(/empty transaction/),
    });
    expect(byId.get(5).error).toMatchObject({ code: -32602, message: expect.stringMatching(/invalid hex/) });
    expect(byId.get(6).error.code).toBe(-32602);
    expect(byId.get(7).error.code).toBe(-32000);
    expect(byId.get(8).error.message).toBe('invalid sender: recovery failed');
    expect(byId.get(9).error.message).toMatch(/^max fee per gas less than block base fee/);
    expect(byId.get('chain').result).toBe('0x7a69');
    expect(answers.filter((x: any) => x.result && x.id !== 'chain')).toHaveLength(3 + 1 + 100);

    const status = await rpc(batched.url, 'txpool_status');
    expect(status).toEqual({ pending: '0x67', queued: '0x1' });
    const content = await rpc(batched.url, 'txpool_content');
    const pending = content.pending[a.address] ?? content.pending[a.address.toLowerCase()];
    expect(Object.keys(pending).map(Number)).toEqual(Array.from({ length: 103 }, (_, i) => i));
  });
});

describe('the recovery thread the batch waits for', () => {
  it.runIf(fs.existsSync('/proc/self/task'))(
    "is one of the threads the CLI leaves at the main thread's priority (deadlineThreadIds)",
    () => {
      // The journal's writer, the recovery thread and the front threads (decision 0400), all
      // threads of this process.
      expect(batched.deadlineThreadIds).toHaveLength(2 + defaultRpcLimits.threads);
      const tids = fs.readdirSync('/proc/self/task').map(Number);
      for (const tid of batched.deadlineThreadIds ?? []) expect(tids).toContain(tid);
    },
  );
});
