/**
 * The state trie's nodes in a LevelDB database of their own, beside the chain's
 * (`<dataDir>/chain-trie`; decision 0540). Every batch the chain's database got held keys of
 * every kind (flat state, transaction index, block references), so each level-0 table spanned
 * the whole key range and was merged with all of level 1, and the disk layer's large trie
 * flushes (~12 MB every ~45 s at 1,000 transfers/s) dragged the per-block keys through those
 * compactions again and again. Apart, each database compacts only its own keys.
 *
 *   chain       blocks' references, indexes, flat state, forward diffs (D), head ...
 *   chain-trie  keys.accountNode (A), keys.storageNode (S), keys.stateLayer (L), the disk
 *               layer's format keys.trieFormat (V) and its leaf runs keys.leafRuns (Q), the
 *               files in chain-leaves (decision 0670); before that its leaves
 *               keys.hashedAccount (h) and keys.hashedStorage (g) (decision 0650)
 *
 * `L` lives with the nodes: a flush's nodes and the new `L` land in one batch of this database,
 * so the disk layer and the block it stands at never disagree. The forward diffs the flush makes
 * unneeded are deleted from the chain's database afterwards (a crash in between leaves diffs
 * below `L`, deleted at the next open).
 *
 * A data directory written before keeps these keys in `chain`: at open they are copied here, `L`
 * last and synced, then deleted there (`adoptTrieKeys`). A crash in between is finished at the
 * next open: once this database holds `L` it is the one that counts.
 */
import type { AbstractLevel } from 'abstract-level';
import { ClassicLevel } from 'classic-level';
import { keys } from './keys.js';

type Bytes = Uint8Array;
type Db = AbstractLevel<any, Bytes, Bytes>;

const ACCOUNT_NODE = 'A'.charCodeAt(0);
const STORAGE_NODE = 'S'.charCodeAt(0);
const STATE_LAYER = 'L'.charCodeAt(0);
const HASHED_ACCOUNT = 'h'.charCodeAt(0);
const HASHED_STORAGE = 'g'.charCodeAt(0);
const TRIE_FORMAT = 'V'.charCodeAt(0);
const LEAF_RUNS = 'Q'.charCodeAt(0);

/**
 * keys.trieFormat's values: 1, the disk layer's leaves are LevelDB keys `h` and `g` (decision
 * 0650); 2, they are sorted runs of our own (decision 0670, leafRuns.ts). Absent: every node is
 * stored (before 0650).
 */
export const LEAVES_IN_LEVELDB = 1;
export const LEAVES_IN_RUNS = 2;

/**
 * Whether `key` belongs to the trie's database: a trie node, a leaf of the disk layer, the disk
 * layer's block (L) or its format (V).
 */
export function isTrieKey(key: Bytes): boolean {
  const k = key[0];
  return (
    k === ACCOUNT_NODE ||
    k === STORAGE_NODE ||
    k === STATE_LAYER ||
    k === HASHED_ACCOUNT ||
    k === HASHED_STORAGE ||
    k === TRIE_FORMAT ||
    k === LEAF_RUNS
  );
}

/**
 * LevelDB 1.20 (classic-level) maps every table file it has open into the process (up to 1,000,
 * with no option to read them instead), and a mapped page it has read stays in the node's RSS.
 * Its table cache holds max_open_files - 10 tables; 74 is LevelDB's floor (64 tables mapped), and
 * a table read again after eviction costs one open + mmap in LevelDB's thread, not on the loop
 * (docs/decisions/0009-leveldb-64-open-tables.md).
 */
const MAX_OPEN_FILES = 74;
/**
 * LevelDB's table files are 1 MiB, not its 2 MiB default: what stays mapped is at most the
 * table cache's 64 files, so this halves the ceiling of the node's file-backed RSS
 * (docs/decisions/0016-leveldb-1mib-tables.md).
 */
const TABLE_FILE_SIZE = 1 << 20;

/** Opens (creating) the LevelDB database at `dir` with the node's options. */
export async function openLevel(dir: string, what: string): Promise<Db> {
  const db = new ClassicLevel<Bytes, Bytes>(dir, {
    keyEncoding: 'view',
    valueEncoding: 'view',
    maxOpenFiles: MAX_OPEN_FILES,
    maxFileSize: TABLE_FILE_SIZE,
  });
  try {
    await db.open();
  } catch (e) {
    const cause = (e as { cause?: { code?: string } }).cause;
    if (cause?.code === 'LEVEL_LOCKED')
      throw new Error(`the ${what} ${dir} is in use by another process (is a node running on it?)`);
    throw e;
  }
  return db as unknown as Db;
}

/** The keys of one kind (a one-byte prefix): [prefix, prefix + 1). */
const range = (prefix: number) => ({ gte: Uint8Array.of(prefix), lt: Uint8Array.of(prefix + 1) });

/** Entries copied per batch while moving an old directory's nodes. */
const MOVE_BATCH = 20_000;

/**
 * What `open` does before the store reads anything: finishes a trie reset a crash interrupted,
 * moves what an older data directory kept in the chain's database (trie nodes and `L`) to the
 * trie's, clears a trie whose chain has no head (a crash between a reset's two batches, or the
 * first block's), and drops the forward diffs below `L` a crash may have left (see the file's
 * comment). `chain` and `trie` may be one database (nothing to move then).
 */
export async function adoptTrieKeys(chain: Db, trie: Db): Promise<void> {
  if (await chain.get(keys.trieReset)) await finishTrieReset(chain, trie);
  let layer = await trie.get(keys.stateLayer);
  if (chain !== trie) {
    const old = await chain.get(keys.stateLayer);
    if (!layer && old) {
      for (const prefix of [ACCOUNT_NODE, STORAGE_NODE]) {
        let batch = trie.batch();
        let n = 0;
        for await (const [k, v] of chain.iterator(range(prefix))) {
          batch.put(k, v);
          if (++n % MOVE_BATCH === 0) {
            await batch.write();
            batch = trie.batch();
          }
        }
        await batch.write();
      }
      // Last and synced: from here on the trie's database is the one that counts.
      await trie.put(keys.stateLayer, old, { sync: true } as never);
      layer = old;
    }
    if (old) {
      await chain.clear(range(ACCOUNT_NODE));
      await chain.clear(range(STORAGE_NODE));
      await chain.del(keys.stateLayer, { sync: true } as never);
    }
    if (layer && !(await chain.get(keys.head))) {
      await clearTrie(trie);
      layer = undefined;
    }
  }
  if (layer)
    await chain.clear({ gte: keys.stateDiff(0n), lt: keys.stateDiff(Buffer.from(layer).readBigUInt64BE()) });
}

/** The value of keys.trieReset: the block the trie starts before, or none (no state yet). */
export function trieResetValue(next: bigint | undefined): Bytes {
  if (next === undefined) return Uint8Array.of(0);
  const out = new Uint8Array(9);
  out[0] = 1;
  new DataView(out.buffer).setBigUint64(1, next);
  return out;
}

/**
 * Carries out the pending trie reset (keys.trieReset, landed with the reset's chain batch): the
 * trie's database emptied, `L` set as the reset said, synced, then the marker deleted.
 */
export async function finishTrieReset(chain: Db, trie: Db): Promise<void> {
  const marker = await chain.get(keys.trieReset);
  if (!marker) return;
  await clearTrie(trie);
  if (marker[0] === 1)
    await trie.batch(
      [
        { type: 'put', key: keys.trieFormat, value: Uint8Array.of(LEAVES_IN_RUNS) },
        { type: 'put', key: keys.stateLayer, value: marker.subarray(1, 9) },
      ],
      { sync: true } as never,
    );
  await chain.del(keys.trieReset, { sync: true } as never);
}

async function clearTrie(trie: Db): Promise<void> {
  for (const prefix of [ACCOUNT_NODE, STORAGE_NODE, HASHED_ACCOUNT, HASHED_STORAGE])
    await trie.clear(range(prefix));
  await trie.batch(
    [
      { type: 'del', key: keys.trieFormat },
      { type: 'del', key: keys.leafRuns },
      { type: 'del', key: keys.stateLayer },
    ],
    { sync: true } as never,
  );
}
