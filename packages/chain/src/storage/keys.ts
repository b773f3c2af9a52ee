/**
 * LevelDB key layout. One-byte prefixes keep each kind in its own range so that a prefix scan
 * (all storage slots of one account) touches nothing else.
 */
import { concat, u64 } from '../primitives/hex.js';

const p = (c: string) => Uint8Array.of(c.charCodeAt(0));

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
  /** tx hash -> block hash (32) + index (u64) */
  txIndex: (hash: Uint8Array) => concat(p('t'), hash),
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
  /** node hash -> RLP node of any state or storage trie, for every root ever sealed */
  trieNode: (hash: Uint8Array) => concat(p('N'), hash),
};
