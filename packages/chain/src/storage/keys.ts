/**
 * LevelDB key layout. One-byte prefixes keep each kind in its own range so that a prefix scan
 * (all storage slots of one account) touches nothing else.
 */
import { concat, u64 } from '../primitives/hex.js';

const p = (c: string) => Uint8Array.of(c.charCodeAt(0));
/** Bytes of a transaction's hash in its index key (decision 0520). */
const TX_INDEX_KEY_BYTES = 12;

export const keys = {
  /** JSON: the chain's configuration (dev or a geth genesis), written once. */
  config: p('C'),
  /** Hash of the head (newest sealed) block. */
  head: p('H'),
  /** number (u64) -> block hash */
  canonical: (n: bigint) => concat(p('n'), u64(n)),
  /** block hash -> RLP of the full block */
  block: (hash: Uint8Array) => concat(p('b'), hash),
  /** block hash -> RLP list of the block's encoded receipts */
  receipts: (hash: Uint8Array) => concat(p('r'), hash),
  /** block hash -> senders of the block's transactions, 20 bytes each */
  senders: (hash: Uint8Array) => concat(p('s'), hash),
  /**
   * The tx hash's first 12 bytes -> block number + position (txIndex.ts, decision 0520): a reader
   * checks the transaction at that position, so the rest of the hash need not be in the key.
   */
  txIndex: (hash: Uint8Array) => concat(p('T'), hash.subarray(0, TX_INDEX_KEY_BYTES)),
  /** Before decision 0520: the whole tx hash -> the same value (block hash (32) + u64 before 0423). Read, never written. */
  oldTxIndex: (hash: Uint8Array) => concat(p('t'), hash),
  /** address -> RLP account (latest state only; history lives in the trie) */
  account: (addr: Uint8Array) => concat(p('a'), addr),
  /** address + slot -> value with leading zeros stripped (latest state only) */
  storage: (addr: Uint8Array, slot: Uint8Array) => concat(p('o'), addr, slot),
  storagePrefix: (addr: Uint8Array) => concat(p('o'), addr),
  /** code hash -> bytecode */
  code: (hash: Uint8Array) => concat(p('c'), hash),
  /** fork (--fork-url): address -> the account at the fork block as fetched (forkSource.ts) */
  forkAccount: (addr: Uint8Array) => concat(p('F'), p('a'), addr),
  /** fork: address + slot -> 0x01 + the slot's value at the fork block as fetched */
  forkStorage: (addr: Uint8Array, slot: Uint8Array) => concat(p('F'), p('o'), addr, slot),
  /**
   * The old format (before decision 0211): node hash -> RLP node of any trie, for every root
   * ever sealed. Only looked for: a data directory holding these is refused (pathLayers.ts).
   */
  oldTrieNode: p('N'),
  /** path nibbles (one a byte) -> the account trie's node there, as of the disk layer */
  accountNode: (path: Uint8Array) => concat(p('A'), path),
  /** keccak(address) + path nibbles -> that account's storage-trie node there (disk layer) */
  storageNode: (owner: Uint8Array, path: Uint8Array) => concat(p('S'), owner, path),
  /**
   * keccak(address) -> the account's trie leaf as of the disk layer (slim as `a`, or a fork's
   * DELETED_ACCOUNT): what the account trie's nodes below the written depth are made from
   * (hashedState.ts, decision 0650).
   */
  hashedAccount: (hash: Uint8Array) => concat(p('h'), hash),
  /** keccak(address) + keccak(slot) -> the slot's value as of the disk layer (a fork's zero: empty) */
  hashedStorage: (owner: Uint8Array, slotHash: Uint8Array) => concat(p('g'), owner, slotHash),
  hashedStoragePrefix: (owner: Uint8Array) => concat(p('g'), owner),
  /**
   * The disk layer's format (decision 0650): present once its nodes below the written depth are
   * made from `h` and `g` rather than stored. A database without it is converted at open.
   */
  trieFormat: p('V'),
  /**
   * The disk layer's leaf runs (decision 0670, leafRuns.ts): the ids of the live run files in
   * <dataDir>/chain-leaves, oldest first, u32 each. Written in the batch of the flush or merge
   * that makes a run live.
   */
  leafRuns: p('Q'),
  /** u64: the first block whose trie nodes are not in the disk layer (replayed at start from `D`) */
  stateLayer: p('L'),
  /**
   * Where the newest sealed block's flashblock records start in the journal (segment u32, offset
   * u64): recovery reads the journal from there (builder/flashblockJournal.ts, decision 0521).
   */
  journalStart: p('J'),
  /** number (u64) -> the block's forward state diff, kept until the disk layer passes it */
  stateDiff: (n: bigint) => concat(p('D'), u64(n)),
  /**
   * anvil_reset's trie reset, pending (decision 0540): 0x00 (no state yet) or 0x01 + u64, the
   * block the trie starts before. Written with the reset's chain batch; the trie's database is
   * cleared after it lands, and again at an open that finds it (trieDatabase.ts).
   */
  trieReset: p('R'),
};

/** The disk key of a trie node: the account trie's (no owner) or an account's storage trie's. */
export function trieNodeKey(owner: Uint8Array | undefined, path: Uint8Array): Uint8Array {
  return owner ? keys.storageNode(owner, path) : keys.accountNode(path);
}
