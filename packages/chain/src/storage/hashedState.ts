/**
 * The disk layer's leaves, keyed as the trie keys them (decision 0650): every account at
 * keccak(address) (`keys.hashedAccount`) and every slot at keccak(address) + keccak(slot)
 * (`keys.hashedStorage`), as of the disk layer's block, in sorted runs of their own (leafRuns.ts,
 * decision 0670). The leaves under a trie path are then one
 * key range, and a node below the written depth is made from that range when a read needs it
 * (trie/subtree.ts) rather than stored: a flush writes the changed leaves (~50 bytes an account)
 * and the nodes of the top `WRITTEN_DEPTH` levels, not the ~6 nodes an account's path rewrites.
 *
 *   path length <= 2               keys.accountNode / keys.storageNode, by every flush
 *   path length  = 3               the same, by one flush in 8; made when stale (decision 0660)
 *   path length >  WRITTEN_DEPTH   made from the leaves under the path, checked by its keccak
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
 * Nodes whose path is at most this many nibbles may be stored; deeper ones are always made. At
 * 3.6 million accounts a depth-4 subtree holds ~55 of them, a depth-5 one ~3.4: a node made at
 * depth 4 costs one range read of ~3 KB and ~60 keccaks. Depth 3 is 4,369 nodes (~2.3 MB) at
 * most; depth 4 would be 69,905 (~37 MB), the part of decision 0211's flushes that made them large.
 */
export const WRITTEN_DEPTH = 3;
/**
 * Nodes this shallow (273 a trie) are written by every flush. The 4,096 of depth 3 are written
 * by one flush in `FULL_FLUSH_EVERY` (the first after an open, then every 8th): at 1,000 transfers/s a
 * flush changes nearly all of them (~2.2 MB), most of what a flush wrote. In between, a stored
 * depth-3 node may be of an older version: it is then made from its leaves like a deeper one,
 * which after a restart costs one read of every leaf under the stale paths (decision 0660).
 */
export const ALWAYS_WRITTEN_DEPTH = 2;
export const FULL_FLUSH_EVERY = 8;

const ACCOUNT_NODE = 'A'.charCodeAt(0);
/** 'S' + owner (32 bytes) before a storage node's path. */
const STORAGE_NODE_HEAD = 33;

/** The path length (nibbles) of a trie node's database key, as a latin1 string (pathLayers.ts). */
export function pathLengthOfName(name: string): number {
  return name.charCodeAt(0) === ACCOUNT_NODE ? name.length - 1 : name.length - STORAGE_NODE_HEAD;
}

/** Whether the node at a path this long may be stored (else: always made). */
export const isStoredDepth = (pathLength: number) => pathLength <= WRITTEN_DEPTH;

/** Whether a flush writes the node at a path this long (`full`: one of every FULL_FLUSH_EVERY). */
export const isWrittenDepth = (pathLength: number, full: boolean) =>
  pathLength <= (full ? WRITTEN_DEPTH : ALWAYS_WRITTEN_DEPTH);

/**
 * Whether a stored node at a path this long may be of an older version than the disk layer's,
 * so that a miss there is made from the leaves rather than reported.
 */
export const mayBeStale = (pathLength: number) => pathLength > ALWAYS_WRITTEN_DEPTH;

/** The key prefix of the leaves of the trie `owner` (none: the account trie). */
export function leafPrefix(owner: Bytes | undefined): Bytes {
  return owner ? keys.hashedStoragePrefix(owner) : keys.hashedAccount(new Uint8Array(0));
}

/**
 * The key range [gte, lt) of the leaves under trie path `path` (nibbles) of the trie `owner`. An
 * odd path's last nibble is the high half of the next byte.
 */
export function rangeUnder(owner: Bytes | undefined, path: Bytes): { gte: Bytes; lt: Bytes } {
  const head = leafPrefix(owner);
  const whole = path.length >> 1;
  const odd = path.length & 1;
  const gte = new Uint8Array(head.length + whole + odd);
  gte.set(head, 0);
  for (let i = 0; i < whole; i++) gte[head.length + i] = (path[2 * i] << 4) | path[2 * i + 1];
  if (odd) gte[head.length + whole] = path[path.length - 1] << 4;
  // The bound after every key starting with `gte`'s bits: add one at the path's last nibble.
  const lt = gte.slice();
  let at = lt.length - 1;
  let carry = odd ? 0x10 : 1;
  while (carry && at >= 0) {
    const v = lt[at] + carry;
    lt[at] = v & 0xff;
    carry = v >> 8;
    at--;
  }
  return { gte, lt };
}

/** The trie leaf of a stored leaf value: an account's full RLP, a slot's RLP. */
export function leafValue(owner: Bytes | undefined, stored: Bytes): Bytes {
  if (owner) return RLP.encode(stored);
  // A fork's deleted account is kept as its DELETED_ACCOUNT leaf (not a list).
  return stored.length && stored[0] >= 0xc0 ? fullAccount(stored) : stored;
}

/** The puts of a range's entries (as LevelDB gives them, sorted): keys past the trie's prefix as nibbles, and leaf values. */
export function putsOf(owner: Bytes | undefined, entries: [Bytes, Bytes][]): Put[] {
  const skip = leafPrefix(owner).length;
  return entries.map(([k, v]) => [keyToNibbles(k.subarray(skip)), leafValue(owner, v)] as const);
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

/**
 * Leaf changes of several blocks folded in order: per key the newest value (null: deleted), and
 * the storage tries a block cleared (their leaves on disk go before the puts land). Slots are kept
 * per storage trie, so that a clear drops that trie's earlier puts without looking at the others'.
 */
export class LeafChanges {
  /** latin1 of keys.hashedAccount -> value (null: delete). */
  private readonly accounts = new Map<string, Bytes | null>();
  /** latin1 of keys.hashedStoragePrefix(owner) -> latin1 of keccak(slot) -> value (null: delete). */
  private readonly slots = new Map<string, Map<string, Bytes | null>>();
  /** latin1 of keys.hashedStoragePrefix(owner) of the cleared storage tries. */
  readonly cleared = new Set<string>();

  /**
   * Adds one block's diff. `keepDeletions`: a fork, whose tries keep a deleted account and a
   * zeroed slot as leaves (decision 0302), so those are values here, not deletions.
   */
  add(d: LeafDiff, keepDeletions: boolean): void {
    for (const address of d.clearedStorage) {
      const prefix = latin1(keys.hashedStoragePrefix(keccak256(address)));
      this.slots.delete(prefix);
      this.cleared.add(prefix);
    }
    const owners = new Map<string, Map<string, Bytes | null>>();
    for (const s of d.storage) {
      const a = latin1(s.address);
      let trie = owners.get(a);
      if (!trie) {
        const prefix = latin1(keys.hashedStoragePrefix(keccak256(s.address)));
        trie = this.slots.get(prefix);
        if (!trie) {
          trie = new Map();
          this.slots.set(prefix, trie);
        }
        owners.set(a, trie);
      }
      trie.set(latin1(keccak256(s.slot)), s.value.length ? s.value : keepDeletions ? EMPTY : null);
    }
    for (const a of d.accounts) {
      const key = latin1(keys.hashedAccount(keccak256(a.address)));
      this.accounts.set(key, a.rlp ? slimAccount(a.rlp) : keepDeletions ? DELETED : null);
    }
  }

  /** Every changed leaf: its key (latin1) and value (null: delete). */
  *entries(): Generator<[key: string, value: Bytes | null]> {
    yield* this.accounts;
    for (const [prefix, trie] of this.slots) for (const [slot, v] of trie) yield [prefix + slot, v];
  }
}
