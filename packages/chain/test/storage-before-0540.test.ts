/**
 * A data directory written before decision 0540 (trie nodes and keys.stateLayer in the chain's
 * own LevelDB database, a disk-layer flush landed; fixtures-before-0540, made by main at 6dfb8ec
 * with its make.mjs) opens with this version: its trie moves to `chain-trie`, the node answers
 * what the old one did at the head and at a past block in the window, proofs included, and
 * after more blocks and a restart still does.
 */
import fs from 'node:fs';
import path from 'node:path';
import { ClassicLevel } from 'classic-level';
import { describe, expect, it } from 'vitest';
import { cleanUpAfterEach, rpc, startTestNode, tempDir, waitFor } from './node-helpers.js';

const fixture = path.join(import.meta.dirname, 'fixtures-before-0540');
const answers = JSON.parse(fs.readFileSync(path.join(fixture, 'answers.json'), 'utf8'));

const { nodes, dirs } = cleanUpAfterEach();

async function expectOldAnswers(url: string): Promise<void> {
  for (const tag of ['latest', 'previous']) {
    const at = answers[tag];
    for (const a of [answers.from, answers.contract, ...answers.recipients]) {
      expect(await rpc(url, 'eth_getBalance', [a, at.block])).toBe(at[a].balance);
      expect(await rpc(url, 'eth_getTransactionCount', [a, at.block])).toBe(at[a].nonce);
    }
    for (const [a, proof] of Object.entries<any>(at.proofs)) {
      const slots = proof.storageProof.map((s: any) => s.key);
      expect(await rpc(url, 'eth_getProof', [a, slots, at.block])).toEqual(proof);
    }
  }
}

/** Keys of a LevelDB database by their first byte (the node stopped). */
async function kinds(dir: string): Promise<Record<string, number>> {
  const db = new ClassicLevel<Uint8Array, Uint8Array>(dir, { keyEncoding: 'view', valueEncoding: 'view' });
  await db.open();
  const out: Record<string, number> = {};
  for await (const k of db.keys()) {
    const c = String.fromCharCode(k[0]);
    out[c] = (out[c] ?? 0) + 1;
  }
  await db.close();
  return out;
}

describe('a data directory written before decision 0540 (the trie in the chain database)', () => {
  it('moves the trie to its own database, answers as the old node did, and restarts', async () => {
    const dataDir = tempDir();
    dirs.push(dataDir);
    fs.cpSync(path.join(fixture, 'chain'), path.join(dataDir, 'chain'), { recursive: true });
    const before = await kinds(path.join(dataDir, 'chain'));
    expect(before.A).toBeGreaterThan(0);
    expect(before.S).toBeGreaterThan(0);
    expect(before.L).toBe(1);

    const a = await startTestNode({ dataDir, stateWindow: 2 });
    nodes.push(a);
    await expectOldAnswers(a.url);
    // Blocks on top, past another flush of the disk layer (every 64 blocks).
    const fresh = '0x00000000000000000000000000000000000000c7';
    let last = '';
    for (let i = 0; i < 66; i++)
      last = await rpc(a.url, 'eth_sendTransaction', [{ from: answers.from, to: fresh, value: '0x1' }]);
    await waitFor(async () => (await rpc(a.url, 'eth_getTransactionReceipt', [last])) !== null);
    const head = await rpc(a.url, 'eth_blockNumber');
    const proof = await rpc(a.url, 'eth_getProof', [fresh, [], head]);
    const storage = await rpc(a.url, 'eth_getProof', [answers.contract, ['0xa', '0x3c'], head]);
    await a.stop({ keepData: true });
    nodes.splice(0);

    const chain = await kinds(path.join(dataDir, 'chain'));
    expect([chain.A, chain.S, chain.L]).toEqual([undefined, undefined, undefined]);
    const trie = await kinds(path.join(dataDir, 'chain-trie'));
    // Converted too (decisions 0650, 0670): the leaves in runs of their own (named by Q), the
    // nodes below the written depth gone.
    expect(trie.A).toBeGreaterThan(0);
    expect(trie.S).toBeGreaterThan(0);
    expect(trie.L).toBe(1);
    expect(trie.V).toBe(1);
    expect(trie.Q).toBe(1);
    expect(Object.keys(trie).sort()).toEqual(['A', 'L', 'Q', 'S', 'V']);
    expect(fs.readdirSync(path.join(dataDir, 'chain-leaves')).length).toBeGreaterThan(0);

    const b = await startTestNode({ dataDir, stateWindow: 2 });
    nodes.push(b);
    expect(await rpc(b.url, 'eth_blockNumber')).toBe(head);
    expect(await rpc(b.url, 'eth_getProof', [fresh, [], head])).toEqual(proof);
    expect(await rpc(b.url, 'eth_getProof', [answers.contract, ['0xa', '0x3c'], head])).toEqual(storage);
    expect(await rpc(b.url, 'eth_getBalance', [fresh, head])).toBe('0x42');
    for (const a of answers.recipients)
      expect(await rpc(b.url, 'eth_getBalance', [a, head])).toBe(answers.latest[a].balance);
  });
});
