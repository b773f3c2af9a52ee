// The disk layer's leaves as sorted runs of our own (decision 0670): what a range read answers is
// the leaves as the flushes left them, however the runs were merged, before and after a reopen,
// on files and in memory; damaged or unnamed files are handled at open.
import fs from 'node:fs';
import path from 'node:path';
import { Account } from '@ethereumjs/util';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { initKeccak, keccak256 } from '../src/crypto/keccak.js';
import { slimAccount } from '../src/storage/flatAccount.js';
import { type LeafDiff, LeafChanges, rangeUnder } from '../src/storage/hashedState.js';
import { keys } from '../src/storage/keys.js';
import { BLOCK_BYTES, LeafRun, RunWriter } from '../src/storage/leafRun.js';
import { FANOUT, LeafRuns, mergeFrom, type NewRun } from '../src/storage/leafRuns.js';
import { tempDir } from './node-helpers.js';
import { rng } from './rng.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});
beforeAll(() => initKeccak());

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
const address = (i: number) => {
  const a = new Uint8Array(20);
  new DataView(a.buffer).setUint32(16, i);
  return a;
};
const slot = (i: number) => {
  const s = new Uint8Array(32);
  new DataView(s.buffer).setUint32(28, i);
  return s;
};

describe('a leaf run', () => {
  it('answers any key range exactly, across its blocks, from a file and from memory', async () => {
    const dir = tempDir('wharf-leafrun-');
    dirs.push(dir);
    const random = rng(11);
    const entries = new Map<string, Uint8Array | null>();
    for (let i = 0; i < 3_000; i++) {
      const k = keccak256(address(i));
      entries.set(hex(Uint8Array.of(0x68, ...k)), random() < 0.1 ? null : Uint8Array.of(i & 0xff, 1, 2, 3));
    }
    const sorted = [...entries].sort(([a], [b]) => (a < b ? -1 : 1));
    for (const file of [path.join(dir, 'a.leaves'), undefined]) {
      const w = await RunWriter.create(file);
      for (const [k, v] of sorted) await w.add(Buffer.from(k, 'hex'), v);
      const run = await w.finish([]);
      // Many blocks, so that ranges start and end inside and between them.
      expect(run.dataEnd / BLOCK_BYTES).toBeGreaterThan(20);
      expect(run.entries).toBe(3_000);
      for (let t = 0; t < 300; t++) {
        const path = Uint8Array.from({ length: 1 + Math.floor(random() * 3) }, () =>
          Math.floor(random() * 16),
        );
        const { gte, lt } = rangeUnder(undefined, path);
        const want = sorted.filter(([k]) => k >= hex(gte) && k < hex(lt)).map(([k, v]) => [k, v && hex(v)]);
        const got = (await run.range(gte, lt)).map(([k, v]) => [hex(k), v && hex(v)]);
        expect(got).toEqual(want);
      }
      // The whole range and one before every key.
      expect((await run.range(Uint8Array.of(0x68), Uint8Array.of(0x69))).length).toBe(3_000);
      expect(await run.range(Uint8Array.of(0x10), Uint8Array.of(0x68))).toEqual([]);
      await run.close();
    }
  });

  it('refuses keys out of order and files that are not runs', async () => {
    const w = await RunWriter.create();
    await w.add(Uint8Array.of(0x68, 2), Uint8Array.of(1));
    await expect(w.add(Uint8Array.of(0x68, 1), Uint8Array.of(1))).rejects.toThrow(/increasing key order/);
    await expect(w.add(Uint8Array.of(0x68, 2), Uint8Array.of(1))).rejects.toThrow(/increasing key order/);
    const dir = tempDir('wharf-leafrun-');
    dirs.push(dir);
    fs.writeFileSync(path.join(dir, 'x.leaves'), Buffer.alloc(100, 7));
    await expect(LeafRun.openFile(path.join(dir, 'x.leaves'))).rejects.toThrow(/not a leaf run/);
  });
});

describe('choosing runs to merge', () => {
  const MB = 1 << 20;
  it('merges FANOUT runs of a size class, counting smaller ones with them, never a big run for small ones', () => {
    expect(mergeFrom([])).toBeUndefined();
    expect(mergeFrom([100 * MB, 2 * MB, 2 * MB, 1 * MB])).toBeUndefined();
    expect(mergeFrom([100 * MB, 2 * MB, 2 * MB, 2 * MB])).toBeUndefined();
    expect(mergeFrom([100 * MB, 2 * MB, 2 * MB, 2 * MB, 2 * MB])).toBe(1);
    // Small runs count with the class above them: four runs of at most 8 MB.
    expect(mergeFrom([100 * MB, 8 * MB, 7 * MB, 1 * MB, 2 * MB])).toBe(1);
    // The base and three smaller: not yet (the base is of a class of its own).
    expect(mergeFrom([300 * MB, 70 * MB, 70 * MB, 18 * MB])).toBeUndefined();
    expect(mergeFrom([300 * MB, 70 * MB, 70 * MB, 18 * MB, 4 * MB])).toBe(1);
    expect(mergeFrom([300 * MB, 290 * MB, 280 * MB, 270 * MB])).toBe(0);
  });
});

/** The leaves a run set must answer: hashed key (hex, with its kind byte) -> value. */
type Model = Map<string, Uint8Array>;

describe.each([
  ['in files', true],
  ['in memory', false],
])('leaf runs %s', (_, onDisk) => {
  it('answer as the flushes left the leaves, through merges of every kind and a reopen', async () => {
    const dir = onDisk ? tempDir('wharf-leafruns-') : undefined;
    if (dir) dirs.push(dir);
    const folder = dir && path.join(dir, 'leaves');
    let runs = await LeafRuns.open(folder, undefined);
    let manifest: Uint8Array | undefined;
    const land = (r: NewRun | undefined) => {
      if (!r) return;
      manifest = runs.manifestWith([r]);
      runs.adopt(r);
    };
    const model: Model = new Map();
    const random = rng(onDisk ? 5 : 6);
    const pick = (n: number) => Math.floor(random() * n);
    const contracts = [1, 2, 3].map((i) => address(900_000 + i));
    let next = 1;
    const check = async () => {
      // Every slot of every storage trie in one range: cleared tries' older slots are gone.
      const slots = [...model].filter(([k]) => k.startsWith('67')).sort(([a], [b]) => (a < b ? -1 : 1));
      const all = await runs.range(Uint8Array.of(0x67), Uint8Array.of(0x68));
      expect(all.map(([k, v]) => [hex(k), hex(v)])).toEqual(slots.map(([k, v]) => [k, hex(v)]));
      const tries: (Uint8Array | undefined)[] = [undefined, ...contracts.map((c) => keccak256(c))];
      for (const owner of tries)
        for (let t = 0; t < 40; t++) {
          const p = Uint8Array.from({ length: pick(3) }, () => pick(16));
          const { gte, lt } = rangeUnder(owner, p);
          const want = [...model]
            .filter(([k]) => k >= hex(gte) && k < hex(lt))
            .sort(([a], [b]) => (a < b ? -1 : 1))
            .map(([k, v]) => [k, hex(v)]);
          const got = (await runs.range(gte, lt)).map(([k, v]) => [hex(k), hex(v)]);
          expect(got).toEqual(want);
        }
    };
    let merged = 0;
    for (let round = 0; round < 24; round++) {
      const d: LeafDiff = { accounts: [], clearedStorage: [], storage: [] };
      for (let i = 0; i < 200; i++) {
        const a = next < 50 || random() < 0.7 ? address(next++) : address(1 + pick(next - 1));
        const deleted = random() < 0.1;
        d.accounts.push({ address: a, rlp: deleted ? null : new Account(1n, BigInt(round + i)).serialize() });
      }
      // A contract's storage cleared now and then, with new slots after the clear.
      if (round % 5 === 3) d.clearedStorage.push(contracts[round % 3]);
      for (const c of contracts)
        for (let i = 0; i < 30; i++)
          d.storage.push({
            address: c,
            slot: slot(pick(150)),
            value: i % 4 ? Uint8Array.of(round, i) : new Uint8Array(0),
          });
      const changes = new LeafChanges();
      changes.add(d, false);
      for (const c of d.clearedStorage) {
        const prefix = hex(keys.hashedStoragePrefix(keccak256(c)));
        for (const k of [...model.keys()]) if (k.startsWith(prefix)) model.delete(k);
      }
      for (const [k, v] of changes.entries()) {
        const key = Buffer.from(k, 'latin1').toString('hex');
        if (v) model.set(key, v);
        else model.delete(key);
      }
      land(await runs.write(changes));
      // Merge when due, as the store does after a flush lands.
      for (let r = await runs.merge(); r; r = await runs.merge()) {
        merged++;
        land(r);
      }
      expect(runs.stats.runs).toBeLessThan(3 * FANOUT);
      if (round % 6 === 5) await check();
    }
    expect(merged).toBeGreaterThan(2);
    expect(runs.written.mergeBytes).toBeGreaterThan(0);
    // Runs on disk merge in a thread of their own (the package is built by `npm ci`).
    expect(runs.written.mergesInThread).toBe(onDisk ? merged : 0);
    // Slim values as written: the model keeps what LeafChanges hands over.
    expect(model.size).toBeGreaterThan(3_000);
    expect([...model.values()].some((v) => hex(v) === hex(slimAccount(v)))).toBe(true);
    if (!folder) return;
    await runs.close();
    // An unnamed file (a flush a crash cut short) is deleted at open; the named ones answer.
    fs.writeFileSync(path.join(folder, '99999999.leaves'), 'half a run');
    runs = await LeafRuns.open(folder, manifest);
    expect(fs.existsSync(path.join(folder, '99999999.leaves'))).toBe(false);
    await check();
    // The files left are exactly the live runs (merged inputs deleted).
    expect(fs.readdirSync(folder).length).toBe(runs.stats.runs);
    await runs.close();
    // A named run missing: a clear error, not a silently empty state.
    fs.rmSync(path.join(folder, fs.readdirSync(folder)[0]));
    await expect(LeafRuns.open(folder, manifest)).rejects.toThrow(/leaf runs in .* are damaged/);
  });

  /** FANOUT live runs of one account each: a merge is due. */
  const fanoutRuns = async () => {
    const dir = onDisk ? tempDir('wharf-leafruns-') : undefined;
    if (dir) dirs.push(dir);
    const folder = dir && path.join(dir, 'leaves');
    const runs = await LeafRuns.open(folder, undefined);
    for (let i = 0; i < FANOUT; i++) {
      const changes = new LeafChanges();
      const rlp = new Account(1n, 1n).serialize();
      changes.add({ accounts: [{ address: address(i), rlp }], clearedStorage: [], storage: [] }, false);
      runs.adopt((await runs.write(changes)) as NewRun);
    }
    return { folder, runs };
  };

  it('deletes the runs a merge replaced once the reads holding them are done', async () => {
    const { folder, runs } = await fanoutRuns();
    const merge = (await runs.merge()) as NewRun;
    // A read holds the four runs; the merge replaces them before it is done.
    const reading = runs.range(Uint8Array.of(0x68), Uint8Array.of(0x69));
    runs.adopt(merge);
    expect((await reading).length).toBe(FANOUT);
    expect((await runs.range(Uint8Array.of(0x68), Uint8Array.of(0x69))).length).toBe(FANOUT);
    if (folder) {
      await new Promise((r) => setTimeout(r, 50));
      expect(fs.readdirSync(folder)).toEqual([`${String(merge.id).padStart(8, '0')}.leaves`]);
    }
    await runs.close();
  });

  it('drops what a reset cleared, and a merge the reset overtook', async () => {
    const { folder, runs } = await fanoutRuns();
    const merge = (await runs.merge()) as NewRun;
    expect(merge.replaces.length).toBe(FANOUT);
    runs.clear();
    expect(runs.isCurrent(merge)).toBe(false);
    await runs.discard(merge);
    expect(await runs.range(Uint8Array.of(0x68), Uint8Array.of(0x69))).toEqual([]);
    if (folder) {
      // The retired runs' files go once no read holds them.
      await new Promise((r) => setTimeout(r, 50));
      expect(fs.readdirSync(folder)).toEqual([]);
    }
    await runs.close();
  });
});
