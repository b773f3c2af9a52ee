// The disk layer keeps its leaves and the top of its trie, and makes the deeper nodes from the
// leaves when a read needs them (decision 0650): every account and slot of a flushed state reads
// back through a trie with no node in memory, on a real LevelDB, for a chain and for a fork.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { RLP } from '@ethereumjs/rlp';
import { Account } from '@ethereumjs/util';
import { ClassicLevel } from 'classic-level';
import type { Worker } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import { initKeccak, keccak256 } from '../src/crypto/keccak.js';
import { bytesToHex, hexToBytes } from '../src/primitives/hex.js';
import { DELETED_ACCOUNT } from '../src/state/forkState.js';
import { encodeAccount } from '../src/state/accountCodec.js';
import type { StateDiff } from '../src/state/journaledState.js';
import { computeStateRoot } from '../src/state/stateRoot.js';
import { openTrie } from '../src/state/trieAdapter.js';
import type { StateReader } from '../src/state/stateReader.js';
import { ChainStore } from '../src/storage/chainStore.js';
import { rangeUnder, WRITTEN_DEPTH } from '../src/storage/hashedState.js';
import { keys } from '../src/storage/keys.js';
import { FANOUT, LeafRuns } from '../src/storage/leafRuns.js';
import { LEAVES_IN_LEVELDB, LEAVES_IN_RUNS } from '../src/storage/trieDatabase.js';
import { EMPTY_TRIE_ROOT, type TrieNodeStore } from '../src/trie/index.js';
import { tempDir } from './node-helpers.js';
import { rng } from './rng.js';
import { stateOnlyBlock } from './state-helpers.js';

const dirs: string[] = [];
const stores: ChainStore[] = [];
afterEach(async () => {
  for (const s of stores.splice(0)) await s.close().catch(() => {});
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

describe('rangeUnder', () => {
  it('bounds the keys under a path of either parity, carrying past 0xf and 0xff', () => {
    const r = (path: number[]) => {
      const { gte, lt } = rangeUnder(undefined, Uint8Array.from(path));
      return [hex(gte), hex(lt)];
    };
    // 'h' is 0x68; the next kind's first key is the bound of the whole trie.
    expect(r([])).toEqual(['68', '69']);
    expect(r([0xa])).toEqual(['68a0', '68b0']);
    expect(r([0xa, 0xb])).toEqual(['68ab', '68ac']);
    expect(r([0xf])).toEqual(['68f0', '6900']);
    expect(r([0xf, 0xf, 0xf])).toEqual(['68fff0', '690000']);
    const owner = new Uint8Array(32).fill(0x11);
    const s = rangeUnder(owner, Uint8Array.of(2, 3, 4));
    expect(hex(s.gte)).toBe(`67${'11'.repeat(32)}2340`);
    expect(hex(s.lt)).toBe(`67${'11'.repeat(32)}2350`);
  });
});

/** Address i (big-endian in the last 4 bytes). */
const address = (i: number) => {
  const a = new Uint8Array(20);
  new DataView(a.buffer).setUint32(16, i);
  return a;
};
const slotKey = (i: number) => {
  const s = new Uint8Array(32);
  new DataView(s.buffer).setUint32(28, i);
  return bytesToHex(s);
};

describe.each([
  ['a chain', false, 4],
  ['a fork (deletions kept as leaves)', true, 4],
  ['a chain flushed every block (its leaf runs merged)', false, 1],
  ['a fork flushed every block (its leaf runs merged)', true, 1],
])('the disk layer of %s', (_, fork, flushBlocks) => {
  it('reads every account and slot back through nodes made from its leaves, before and after a restart', async () => {
    await initKeccak();
    const dir = tempDir('wharf-hashed-');
    dirs.push(dir);
    // Every block merged at once, a flush every 4 blocks (or every block: 12 leaf runs, merged
    // 4 at a time), no clean cache: after the flushes a read below the written depth can only be
    // answered by making the node.
    const limits = { window: 1, maxBytes: 1 << 30, flushBytes: 1 << 30, flushBlocks, cleanBytes: 0 };
    let store = await ChainStore.open(dir, limits);
    stores.push(store);
    store.tombstones = fork;
    // The store in use (it is reopened below).
    const nodes: TrieNodeStore = {
      get: (...a) => store.trieNodes.get(...a),
      getMany: (...a) => store.trieNodes.getMany!(...a),
    };
    // The model: every account and slot as it should be.
    const accounts = new Map<string, Account | null>();
    const slots = new Map<string, Map<string, Uint8Array>>();
    const base: StateReader = {
      readAccount: async (a) => accounts.get(bytesToHex(a)) ?? undefined,
      readStorage: async () => new Uint8Array(0),
      readCode: async () => new Uint8Array(0),
    };
    const random = rng(fork ? 7 : 3);
    const pick = (n: number) => Math.floor(random() * n);
    const contracts: string[] = [1, 2, 3].map((i) => bytesToHex(address(1_000_000 + i)));
    const roots: Uint8Array[] = [];
    // Each block's slots: the disk layer's block's are what the leaves must hold.
    const slotsAt: Map<string, Map<string, Uint8Array>>[] = [];
    let root = EMPTY_TRIE_ROOT;
    let next = 1;
    const BLOCKS = 14;
    for (let b = 0; b < BLOCKS; b++) {
      const diff: StateDiff = { accounts: new Map(), storage: new Map(), code: new Map() };
      // Fresh accounts, changed ones, deleted ones.
      for (let i = 0; i < 400; i++)
        diff.accounts.set(bytesToHex(address(next++)), new Account(1n, BigInt(next)));
      const live = [...accounts].filter(([k, a]) => a && !contracts.includes(k)).map(([k]) => k);
      for (let i = 0; i < 60 && live.length; i++) {
        const k = live[pick(live.length)];
        const a = accounts.get(k)!;
        diff.accounts.set(k, new Account(a.nonce + 1n, a.balance + 5n, a.storageRoot, a.codeHash));
      }
      for (let i = 0; i < 15 && live.length; i++) diff.accounts.set(live[pick(live.length)], null);
      // Contracts' slots: set, changed, zeroed; one contract's storage cleared in block 9.
      for (const c of contracts) {
        const a = accounts.get(c) ?? new Account(1n, 1n);
        diff.accounts.set(c, new Account(a.nonce, a.balance, a.storageRoot, a.codeHash));
        const set = new Map<string, Uint8Array>();
        for (let i = 0; i < 40; i++)
          set.set(slotKey(pick(300)), i % 5 === 0 ? new Uint8Array(0) : Uint8Array.of(b + 1, i));
        diff.storage.set(c, { cleared: b === 9 && c === contracts[0], slots: set });
      }
      const r = await computeStateRoot(root, base, diff, nodes, undefined, fork);
      const w = stateOnlyBlock(b, r, diff.storage);
      for (const [k, a] of r.accounts) accounts.set(k, a);
      for (const [c, s] of diff.storage) {
        const m = s.cleared ? new Map() : (slots.get(c) ?? new Map());
        for (const [slot, v] of s.slots) m.set(slot, v);
        slots.set(c, m);
      }
      await store.writeBlock(w);
      root = r.root;
      roots.push(root);
      slotsAt.push(new Map([...slots].map(([c, m]) => [c, new Map(m)])));
    }
    await store.flushed();
    // A flush takes every block waiting: one a block when the writes keep up.
    if (flushBlocks === 4) expect(store.written.flushes).toBe(3);
    else expect(store.written.flushes).toBeGreaterThanOrEqual(FANOUT + 1);
    expect(store.written.leafFlushBytes).toBeGreaterThan(0);

    /** The head's state (the model's), read through a trie with nothing loaded. */
    const expectHead = async () => {
      const trie = openTrie(root, nodes);
      let checked = 0;
      for (const [k, a] of accounts) {
        const leaf = await trie.get(keccak256(hexToBytes(k)));
        if (a) expect(leaf && hex(leaf)).toBe(hex(encodeAccount(a)));
        else if (fork) expect(leaf && hex(leaf)).toBe(hex(DELETED_ACCOUNT));
        else expect(leaf).toBeUndefined();
        checked++;
      }
      for (const [c, m] of slots) {
        const st = openTrie(accounts.get(c)!.storageRoot, nodes, keccak256(hexToBytes(c)));
        for (const [slot, v] of m) {
          const leaf = await st.get(keccak256(hexToBytes(slot)));
          if (v.length || fork) expect(leaf && hex(leaf)).toBe(hex(RLP.encode(v)));
          else expect(leaf).toBeUndefined();
          checked++;
        }
      }
      return checked;
    };
    // The head (block 13) is past the disk layer (block 11): its newest two blocks are diff
    // layers; everything below them is made.
    const made = store.readKeys.nodesMade;
    const waits: number[] = [];
    store.subtrees.onAnswer = (seconds) => waits.push(seconds);
    expect(await expectHead()).toBeGreaterThan(5_000);
    expect(store.readKeys.nodesMade - made).toBeGreaterThan(100);
    // Made in the subtree worker (it reads the runs' files itself), none on the event loop.
    expect(store.subtrees.made.inThread).toBe(store.readKeys.nodesMade);
    expect(store.subtrees.made.here).toBe(0);
    // Each answer's wait is told (node.ts: wharf_state_make_wait_seconds).
    expect(waits.length).toBeGreaterThan(0);
    expect(waits.every((s) => s > 0 && s < 60)).toBe(true);
    await store.close();
    stores.splice(0);
    // Merged: the runs of 12 flushes were merged (the oldest ones into one, dropping deletions).
    if (flushBlocks === 1) expect(store.written.leafMergeBytes).toBeGreaterThan(0);
    else expect(store.written.leafMergeBytes).toBe(0);

    // On disk: the leaves, and no node below the written depth.
    const trieDb = new ClassicLevel<Uint8Array, Uint8Array>(`${dir}-trie`, {
      keyEncoding: 'view',
      valueEncoding: 'view',
    });
    const depths: number[] = [];
    for await (const k of trieDb.keys()) {
      if (k[0] === 0x41) depths.push(k.length - 1);
      else if (k[0] === 0x53) depths.push(k.length - 33);
      // The leaves are in the runs, none in LevelDB.
      else expect(['L', 'V', 'Q']).toContain(String.fromCharCode(k[0]));
    }
    const runs = await LeafRuns.open(`${dir}-leaves`, await trieDb.get(keys.leafRuns));
    const leaves = (await runs.range(Uint8Array.of(0x68), Uint8Array.of(0x69))).length;
    const slotLeaves = new Map<string, string>();
    for (const c of contracts) {
      const { gte, lt } = rangeUnder(keccak256(hexToBytes(c)), new Uint8Array(0));
      for (const [k, v] of await runs.range(gte, lt)) slotLeaves.set(hex(k.subarray(1)), hex(v));
    }
    await runs.close();
    // A new database is of the runs' format from its first block: its next open moves nothing.
    expect((await trieDb.get(keys.trieFormat))?.[0]).toBe(LEAVES_IN_RUNS);
    if (flushBlocks === 4) await backToLeavesInLevelDb(dir, trieDb);
    // Exactly block 11's slots: none left over from before the cleared trie or a zeroed slot
    // (a fork keeps its zeroed slots as leaves with an empty value).
    const expected = new Map<string, string>();
    // The disk layer's block: 11 (flushes of 4 blocks); of every block, 12 over the window of 1,
    // or 11 when the last flush took two blocks (whatever waited when the queue was free).
    const disk = Number(Buffer.from((await trieDb.get(keys.stateLayer))!).readBigUInt64BE()) - 1;
    if (flushBlocks === 4) expect(disk).toBe(11);
    else expect([11, 12]).toContain(disk);
    for (const [c, m] of slotsAt[disk])
      for (const [slot, v] of m)
        if (v.length || fork)
          expected.set(hex(keccak256(hexToBytes(c))) + hex(keccak256(hexToBytes(slot))), hex(v));
    expect(slotLeaves).toEqual(expected);
    await trieDb.close();
    expect(Math.max(...depths)).toBe(WRITTEN_DEPTH);
    // Block 11's accounts (400 a block, at most 15 a block deleted) and its contracts' slots.
    expect(leaves).toBeGreaterThan(400 * (disk + 1) - 15 * (disk + 1));

    if (flushBlocks === 1) {
      // In a process of its own, with nothing else pending: the worker's answers keep it alive
      // until every read has answered (a start's first reads are the whole event loop), and once
      // idle the worker does not keep it running.
      const got = readInAProcess(dir, limits, hex(roots[disk]), 400);
      expect(got.inThread).toBeGreaterThan(0);
      expect(got.found).toBeGreaterThan(400 - 15 * (disk + 1));
    }

    // Reopened: the disk layer alone answers for its block's state (read from the runs the
    // leaves in LevelDB were moved to, for flushes of 4 blocks).
    if (flushBlocks === 4) expect(fs.existsSync(`${dir}-leaves`)).toBe(false);
    store = await ChainStore.open(dir, limits);
    stores.push(store);
    expect(store.stateLayerStart).toBe(BigInt(disk + 1));
    const trie = openTrie(roots[disk], nodes);
    // Accounts created after the disk layer's block are not in its state; every older one reads.
    let found = 0;
    const created = 400 * (disk + 1);
    const half = created >> 1;
    for (let i = 1; i <= half; i++) if (await trie.get(keccak256(address(i)))) found++;
    expect(store.subtrees.made.inThread).toBeGreaterThan(0);
    // The worker killed with reads in flight: what it had, and every node after, is made on the
    // event loop, and every read still answers.
    const reads: Promise<Uint8Array | undefined>[] = [];
    for (let i = half + 1; i <= created; i++) reads.push(trie.get(keccak256(address(i))));
    await (store.subtrees as unknown as { worker: Worker }).worker.terminate();
    for (const leaf of await Promise.all(reads)) if (leaf) found++;
    expect(store.subtrees.inWorker).toEqual({ yes: false, failure: expect.stringMatching(/exited/) });
    expect(store.subtrees.made.here).toBeGreaterThan(0);
    expect(found).toBeGreaterThan(created - 15 * (disk + 1));
    expect(await trie.get(keccak256(address(created + 1)))).toBeUndefined();
    const proof = await trie.createProof(keccak256(address(5)));
    expect(proof.length).toBeGreaterThan(WRITTEN_DEPTH);
    if (flushBlocks === 4) {
      expect(fs.readdirSync(`${dir}-leaves`).length).toBe(1);
      // Opened once the store has let go of the database's lock (a deferred open raced it).
      await store.close();
      stores.splice(0);
      const trieDb = new ClassicLevel<Uint8Array, Uint8Array>(`${dir}-trie`, {
        keyEncoding: 'view',
        valueEncoding: 'view',
      });
      for await (const k of trieDb.keys()) expect([0x67, 0x68]).not.toContain(k[0]);
      expect((await trieDb.get(keys.trieFormat))?.[0]).toBe(LEAVES_IN_RUNS);
      await trieDb.close();
    }
  });
});

/**
 * Opens the store in `dir` in a new process (the built package), reads accounts 1..`count` at
 * state `root` through a trie with nothing loaded, and exits without closing the store.
 */
function readInAProcess(
  dir: string,
  limits: object,
  root: string,
  count: number,
): { found: number; inThread: number } {
  const dist = pathToFileURL(path.join(path.dirname(fileURLToPath(import.meta.url)), '../dist/')).href;
  const script = `
    const [dist, dir, limits, root, count] = process.argv.slice(2);
    const { initKeccak, keccak256 } = await import(dist + 'crypto/keccak.js');
    const { ChainStore } = await import(dist + 'storage/chainStore.js');
    const { openTrie } = await import(dist + 'state/trieAdapter.js');
    await initKeccak();
    const store = await ChainStore.open(dir, JSON.parse(limits));
    const trie = openTrie(Buffer.from(root, 'hex'), store.trieNodes);
    let found = 0;
    for (let i = 1; i <= Number(count); i++) {
      const a = new Uint8Array(20);
      new DataView(a.buffer).setUint32(16, i);
      if (await trie.get(keccak256(a))) found++;
    }
    console.log(JSON.stringify({ found, inThread: store.subtrees.made.inThread }));
  `;
  // A file, not `--input-type=module -e`: a worker thread inherits the flag and cannot start.
  const file = path.join(dir, '..', `${path.basename(dir)}-read.mjs`);
  fs.writeFileSync(file, script);
  const r = spawnSync(process.execPath, [file, dist, dir, JSON.stringify(limits), root, String(count)], {
    encoding: 'utf8',
    timeout: 60_000,
  });
  fs.rmSync(file);
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
  return JSON.parse(r.stdout);
}

/**
 * Turns a data directory back into decision 0650's format: its leaves as LevelDB keys `h` and
 * `g` in the trie's database (format 1), no runs. Its next open moves them to runs again.
 */
async function backToLeavesInLevelDb(
  dir: string,
  trieDb: ClassicLevel<Uint8Array, Uint8Array>,
): Promise<void> {
  const runs = await LeafRuns.open(`${dir}-leaves`, await trieDb.get(keys.leafRuns));
  const batch = trieDb.batch();
  for (const [k, v] of await runs.range(Uint8Array.of(0x67), Uint8Array.of(0x69))) batch.put(k, v);
  batch.put(keys.trieFormat, Uint8Array.of(LEAVES_IN_LEVELDB));
  batch.del(keys.leafRuns);
  await batch.write();
  await runs.close();
  fs.rmSync(`${dir}-leaves`, { recursive: true });
}
