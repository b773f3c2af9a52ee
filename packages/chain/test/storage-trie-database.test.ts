// The trie's own LevelDB database (trieDatabase.ts, decision 0540): what an open finds after a
// crash between the two databases' batches, and after a move from the chain's database stopped
// halfway, it puts right before anything reads the state.
import fs from 'node:fs';
import path from 'node:path';
import { ClassicLevel } from 'classic-level';
import { afterEach, describe, expect, it } from 'vitest';
import { u64 } from '../src/primitives/hex.js';
import { ChainStore } from '../src/storage/chainStore.js';
import { keys } from '../src/storage/keys.js';
import { trieResetValue } from '../src/storage/trieDatabase.js';
import { tempDir } from './node-helpers.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

type Db = ClassicLevel<Uint8Array, Uint8Array>;
const level = (dir: string): Db => new ClassicLevel(dir, { keyEncoding: 'view', valueEncoding: 'view' });
const node = (n: number) => Uint8Array.of(0xc2, n);

/** The two databases as a crash left them (written directly), then the store opened and closed. */
async function afterOpen(
  write: (chain: Db, trie: Db) => Promise<void>,
): Promise<{ chain: Map<string, string>; trie: Map<string, string>; start: bigint | undefined }> {
  const dir = path.join(tempDir('wharf-trie-db-'), 'chain');
  dirs.push(path.dirname(dir));
  const [chain, trie] = [level(dir), level(`${dir}-trie`)];
  await chain.open();
  await trie.open();
  await write(chain, trie);
  await chain.close();
  await trie.close();
  const store = await ChainStore.open(dir);
  const start = store.stateLayerStart;
  await store.close();
  const dump = async (db: Db) => {
    await db.open();
    const out = new Map<string, string>();
    for await (const [k, v] of db.iterator())
      out.set(Buffer.from(k).toString('hex'), Buffer.from(v).toString('hex'));
    await db.close();
    return out;
  };
  return { chain: await dump(chain), trie: await dump(trie), start };
}

const hex = (x: Uint8Array) => Buffer.from(x).toString('hex');

describe('the trie database at open', () => {
  it('moves an older directory’s nodes and L, also when a move stopped halfway', async () => {
    const r = await afterOpen(async (chain, trie) => {
      await chain.put(keys.head, new Uint8Array(32).fill(1));
      await chain.put(keys.stateLayer, u64(9n));
      for (let i = 0; i < 3; i++) await chain.put(keys.accountNode(Uint8Array.of(i)), node(i));
      await chain.put(keys.storageNode(new Uint8Array(32).fill(7), Uint8Array.of(1)), node(9));
      // The move got as far as one node before the crash (no L in the trie's database yet).
      await trie.put(keys.accountNode(Uint8Array.of(0)), node(0));
    });
    expect(r.start).toBe(9n);
    expect([...r.trie.keys()].sort()).toEqual(
      [
        keys.accountNode(Uint8Array.of(0)),
        keys.accountNode(Uint8Array.of(1)),
        keys.accountNode(Uint8Array.of(2)),
        keys.stateLayer,
        keys.storageNode(new Uint8Array(32).fill(7), Uint8Array.of(1)),
      ]
        .map(hex)
        .sort(),
    );
    expect(r.trie.get(hex(keys.accountNode(Uint8Array.of(2))))).toBe(hex(node(2)));
    expect([...r.chain.keys()]).toEqual([hex(keys.head)]);
  });

  it('drops the forward diffs below L a crash left after a flush', async () => {
    const r = await afterOpen(async (chain, trie) => {
      await chain.put(keys.head, new Uint8Array(32).fill(1));
      for (let n = 1n; n <= 8n; n++) await chain.put(keys.stateDiff(n), Uint8Array.of(Number(n)));
      await trie.put(keys.stateLayer, u64(6n));
    });
    expect(r.start).toBe(6n);
    expect([...r.chain.keys()].sort()).toEqual(
      [keys.head, keys.stateDiff(6n), keys.stateDiff(7n), keys.stateDiff(8n)].map(hex).sort(),
    );
  });

  it('finishes a trie reset whose chain batch landed', async () => {
    const r = await afterOpen(async (chain, trie) => {
      await chain.put(keys.head, new Uint8Array(32).fill(1));
      await chain.put(keys.trieReset, trieResetValue(5n));
      await trie.put(keys.stateLayer, u64(40n));
      await trie.put(keys.accountNode(Uint8Array.of(3)), node(3));
      await trie.put(keys.hashedAccount(new Uint8Array(32).fill(3)), Uint8Array.of(0xc4, 1, 2, 0x80, 0x80));
      await trie.put(
        keys.hashedStorage(new Uint8Array(32).fill(3), new Uint8Array(32).fill(4)),
        Uint8Array.of(9),
      );
    });
    expect(r.start).toBe(5n);
    expect([...r.trie.keys()]).toEqual([hex(keys.stateLayer), hex(keys.trieFormat)]);
    expect([...r.chain.keys()]).toEqual([hex(keys.head)]);
  });

  it('clears a trie whose chain has no head (a reset or the first block cut short)', async () => {
    const r = await afterOpen(async (_chain, trie) => {
      await trie.put(keys.stateLayer, u64(0n));
      await trie.put(keys.accountNode(Uint8Array.of(3)), node(3));
    });
    expect(r.start).toBeUndefined();
    expect(r.trie.size).toBe(0);
  });
});
