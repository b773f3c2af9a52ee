/**
 * The disk layer's leaves, in buckets keyed as the trie keys them (decision 0650): every account
 * under the first 6 nibbles of keccak(address) (`keys.accountLeaves`) and every slot under
 * keccak(address) + the first 6 nibbles of keccak(slot) (`keys.storageLeaves`), as of the disk
 * layer's block. A node below the written depth is made from the buckets under its path when a
 * read needs it (trie/subtree.ts) rather than stored: a flush writes the changed buckets (~1.2
 * leaves of ~50 bytes each at 3.6 million accounts) and the nodes of the top `WRITTEN_DEPTH`
 * levels, not the ~6 nodes an account's path rewrites.
 *
 *   path length <= WRITTEN_DEPTH   keys.accountNode / keys.storageNode, as decision 0211
 *   path length >  WRITTEN_DEPTH   made from the leaves under the path, checked by its keccak
 *
 * Why buckets, not a key per leaf: the leaves under a path are then found by point reads, which
 * go to LevelDB's threads in one `getMany` with every other read of the turn (decision 0431). A
 * range read is an iterator, made on the main thread (~90 µs each with its close and its garbage,
 * measured: docs/perf/2026-11-29-leaves.md). A node at depth 6 or deeper is in one bucket; at
 * depth 5, 16; at depth 4, 256 (at the hour's size those are in memory: every block touches them).
 *
 * A flush's leaves are its blocks' forward diffs (keys.stateDiff, still on disk until the flush
 * lands), folded in block order: nothing besides the diff layers' nodes is held in memory.
 */
import { RLP } from '@ethereumjs/rlp';
import { keccak256 } from '../crypto/keccak.js';
import type { Put } from '../trie/bulk.js';
import { keyToNibbles } from '../trie/nibbles.js';
import { fullAccount, slimAccount } from './flatAccount.js';
import { keys } from './keys.js';
import { latin1 } from './pathLayers.js';

type Bytes = Uint8Array;

/**
 * Nodes whose path is at most this many nibbles are stored; deeper ones are made. At 3.6 million
 * accounts a depth-4 subtree holds ~55 of them, a depth-5 one ~3.4. Depth 3 is 4,369 nodes
 * (~2.3 MB) at most per flush; depth 4 would be 69,905 (~37 MB), the part of decision 0211's
 * flushes that made them large.
 */
export const WRITTEN_DEPTH = 3;

/** A bucket holds the leaves whose keys share their first 6 nibbles (16.8 million buckets a trie). */
export const BUCKET_BYTES = 3;
const BUCKET_NIBBLES = 2 * BUCKET_BYTES;
/** What a leaf's key has past its bucket: 29 bytes of a 32-byte keccak. */
const SUFFIX_BYTES = 32 - BUCKET_BYTES;

const ACCOUNT_NODE = 'A'.charCodeAt(0);
/** 'S' + owner (32 bytes) before a storage node's path. */
const STORAGE_NODE_HEAD = 33;

/** The path length (nibbles) of a trie node's database key, as a latin1 string (pathLayers.ts). */
export function pathLengthOfName(name: string): number {
  return name.charCodeAt(0) === ACCOUNT_NODE ? name.length - 1 : name.length - STORAGE_NODE_HEAD;
}

/** Whether the node at a path this long is stored, not made. */
export const isStoredDepth = (pathLength: number) => pathLength <= WRITTEN_DEPTH;

/** The key of the bucket of trie `owner` (none: the account trie) holding `key` (its first 3 bytes count). */
export function bucketKey(owner: Bytes | undefined, key: Bytes): Bytes {
  const head = key.subarray(0, BUCKET_BYTES);
  return owner ? keys.storageLeaves(owner, head) : keys.accountLeaves(head);
}

/**
 * The keys of the buckets holding the leaves under trie path `path` (nibbles) of the trie
 * `owner`, in key order: one for a path of 6 nibbles or more, 16^(6 - length) for a shorter one.
 */
export function bucketsUnder(owner: Bytes | undefined, path: Bytes): Bytes[] {
  const fixed = Math.min(path.length, BUCKET_NIBBLES);
  const free = BUCKET_NIBBLES - fixed;
  const out: Bytes[] = [];
  const head = new Uint8Array(BUCKET_BYTES);
  for (let v = 0; v < 1 << (4 * free); v++) {
    for (let i = 0; i < BUCKET_NIBBLES; i++) {
      const nibble = i < fixed ? path[i] : (v >> (4 * (BUCKET_NIBBLES - 1 - i))) & 0xf;
      if (i & 1) head[i >> 1] |= nibble;
      else head[i >> 1] = nibble << 4;
    }
    out.push(bucketKey(owner, head));
  }
  return out;
}

/** A bucket's leaves: [29-byte key suffix][u8 value length][value], sorted by suffix. */
export function decodeBucket(value: Bytes): [suffix: Bytes, leaf: Bytes][] {
  const out: [Bytes, Bytes][] = [];
  for (let at = 0; at < value.length; ) {
    const n = value[at + SUFFIX_BYTES];
    const end = at + SUFFIX_BYTES + 1 + n;
    if (end > value.length) throw new Error('a leaf bucket is damaged: an entry runs past its end');
    out.push([value.subarray(at, at + SUFFIX_BYTES), value.subarray(at + SUFFIX_BYTES + 1, end)]);
    at = end;
  }
  return out;
}

/** The bucket of these leaves (sorted by suffix; a value is at most 255 bytes: a slim account). */
export function encodeBucket(entries: readonly (readonly [Bytes, Bytes])[]): Bytes {
  let size = 0;
  for (const [, v] of entries) size += SUFFIX_BYTES + 1 + v.length;
  const out = new Uint8Array(size);
  let at = 0;
  for (const [suffix, v] of entries) {
    if (v.length > 0xff) throw new Error(`a leaf of ${v.length} bytes does not fit a bucket entry`);
    out.set(suffix, at);
    out[at + SUFFIX_BYTES] = v.length;
    out.set(v, at + SUFFIX_BYTES + 1);
    at += SUFFIX_BYTES + 1 + v.length;
  }
  return out;
}

/** The trie leaf of a stored leaf value: an account's full RLP, a slot's RLP. */
export function leafValue(owner: Bytes | undefined, stored: Bytes): Bytes {
  if (owner) return RLP.encode(stored);
  // A fork's deleted account is kept as its DELETED_ACCOUNT leaf (not a list).
  return stored.length && stored[0] >= 0xc0 ? fullAccount(stored) : stored;
}

/**
 * The puts (sorted) of the leaves under `path` in the buckets `keys` (as bucketsUnder gave them,
 * in order) whose values are `values` (undefined: an empty bucket).
 */
export function putsUnder(
  owner: Bytes | undefined,
  path: Bytes,
  bucketKeys: Bytes[],
  values: (Bytes | undefined)[],
): Put[] {
  const puts: Put[] = [];
  const skip = bucketKeys[0].length - BUCKET_BYTES;
  for (let b = 0; b < bucketKeys.length; b++) {
    const v = values[b];
    if (!v?.length) continue;
    const head = keyToNibbles(bucketKeys[b].subarray(skip));
    for (const [suffix, leaf] of decodeBucket(v)) {
      const nibbles = new Uint8Array(64);
      nibbles.set(head, 0);
      nibbles.set(keyToNibbles(suffix), BUCKET_NIBBLES);
      if (!startsWith(nibbles, path)) continue;
      puts.push([nibbles, leafValue(owner, leaf)]);
    }
  }
  return puts;
}

function startsWith(nibbles: Bytes, path: Bytes): boolean {
  for (let i = 0; i < path.length; i++) if (nibbles[i] !== path[i]) return false;
  return true;
}

/** A forward diff as its blocks wrote it (chainStore.ts StateDiffRecord). */
export interface LeafDiff {
  accounts: { address: Bytes; rlp: Bytes | null }[];
  clearedStorage: Bytes[];
  storage: { address: Bytes; slot: Bytes; value: Bytes }[];
}

/** A fork's deleted account, as its trie keeps it (forkState.ts DELETED_ACCOUNT): RLP of empty. */
const DELETED = Uint8Array.of(0x80);
const EMPTY = new Uint8Array(0);

/** latin1 of a bucket key -> latin1 of a leaf's suffix -> its value (null: delete). */
type Buckets = Map<string, Map<string, Bytes | null>>;

/**
 * Leaf changes of several blocks folded in order, by bucket: per leaf the newest value (null:
 * deleted), and the storage tries a block cleared (their buckets on disk go before the new ones
 * land). Slots are kept per storage trie, so that a clear drops that trie's earlier changes
 * without looking at the others'.
 */
export class LeafChanges {
  private readonly accounts: Buckets = new Map();
  /** latin1 of keys.storageLeavesPrefix(owner) -> that trie's buckets. */
  private readonly slots = new Map<string, Buckets>();
  /** latin1 of keys.storageLeavesPrefix(owner) of the cleared storage tries. */
  readonly cleared = new Set<string>();

  /**
   * Adds one block's diff. `keepDeletions`: a fork, whose tries keep a deleted account and a
   * zeroed slot as leaves (decision 0302), so those are values here, not deletions.
   */
  add(d: LeafDiff, keepDeletions: boolean): void {
    for (const address of d.clearedStorage) {
      const prefix = latin1(keys.storageLeavesPrefix(keccak256(address)));
      this.slots.delete(prefix);
      this.cleared.add(prefix);
    }
    const owners = new Map<string, { owner: Bytes; buckets: Buckets }>();
    for (const s of d.storage) {
      const a = latin1(s.address);
      let trie = owners.get(a);
      if (!trie) {
        const owner = keccak256(s.address);
        const prefix = latin1(keys.storageLeavesPrefix(owner));
        let buckets = this.slots.get(prefix);
        if (!buckets) {
          buckets = new Map();
          this.slots.set(prefix, buckets);
        }
        trie = { owner, buckets };
        owners.set(a, trie);
      }
      const slot = keccak256(s.slot);
      set(
        trie.buckets,
        bucketKey(trie.owner, slot),
        slot,
        s.value.length ? s.value : keepDeletions ? EMPTY : null,
      );
    }
    for (const a of d.accounts) {
      const hash = keccak256(a.address);
      set(
        this.accounts,
        bucketKey(undefined, hash),
        hash,
        a.rlp ? slimAccount(a.rlp) : keepDeletions ? DELETED : null,
      );
    }
  }

  /** Every changed bucket: its key (latin1), its changes, and whether its trie was cleared. */
  *buckets(): Generator<[key: string, changes: Map<string, Bytes | null>, cleared: boolean]> {
    for (const [k, changes] of this.accounts) yield [k, changes, false];
    for (const [prefix, buckets] of this.slots)
      for (const [k, changes] of buckets) yield [k, changes, this.cleared.has(prefix)];
  }
}

function set(buckets: Buckets, bucket: Bytes, key: Bytes, value: Bytes | null): void {
  const b = latin1(bucket);
  let changes = buckets.get(b);
  if (!changes) {
    changes = new Map();
    buckets.set(b, changes);
  }
  changes.set(latin1(key.subarray(BUCKET_BYTES)), value);
}

/**
 * A bucket as stored (undefined: none) with `changes` applied: its new value, or undefined when
 * no leaf is left (the key is deleted).
 */
export function applyChanges(
  stored: Bytes | undefined,
  changes: Map<string, Bytes | null>,
): Bytes | undefined {
  const leaves = new Map<string, Bytes>();
  if (stored) for (const [suffix, v] of decodeBucket(stored)) leaves.set(latin1(suffix), v);
  for (const [suffix, v] of changes) {
    if (v === null) leaves.delete(suffix);
    else leaves.set(suffix, v);
  }
  if (!leaves.size) return undefined;
  // latin1 strings compare as their bytes do.
  const sorted = [...leaves].sort((x, y) => (x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : 0));
  return encodeBucket(sorted.map(([s, v]) => [Buffer.from(s, 'latin1'), v] as const));
}

/**
 * Leaves in key order (a trie walk's) gathered into buckets: `add` each, `take` the bucket
 * finished when a leaf of another one arrives and at the end.
 */
export class BucketWriter {
  private key?: string;
  private entries: [Bytes, Bytes][] = [];

  /** Adds a leaf (its 32-byte key) of trie `owner`; returns the bucket it finished, if any. */
  add(owner: Bytes | undefined, key: Bytes, stored: Bytes): [Bytes, Bytes] | undefined {
    const k = latin1(bucketKey(owner, key));
    const done = k !== this.key ? this.take() : undefined;
    this.key = k;
    this.entries.push([key.slice(BUCKET_BYTES), stored]);
    return done;
  }

  /** The bucket being gathered, finished (and none gathered after). */
  take(): [Bytes, Bytes] | undefined {
    if (this.key === undefined) return undefined;
    const out: [Bytes, Bytes] = [Buffer.from(this.key, 'latin1'), encodeBucket(this.entries)];
    this.key = undefined;
    this.entries = [];
    return out;
  }
}
