/**
 * LevelDB key layout. One-byte prefixes keep each kind in its own range so that a prefix scan
 * (all storage slots of one account) touches nothing else.
 */
import { concat, u64 } from '../primitives/hex.js';

/** Each kind's first byte (blockOps.ts builds a sealed block's keys from these in one buffer). */
export const prefix = {
  config: 0x43, // C
  head: 0x48, // H
  canonical: 0x6e, // n
  block: 0x62, // b
  receipts: 0x72, // r
  senders: 0x73, // s
  txIndex: 0x74, // t
  account: 0x61, // a
  storage: 0x6f, // o
  code: 0x63, // c
  trieNode: 0x4e, // N
} as const;

const p = (kind: keyof typeof prefix) => Uint8Array.of(prefix[kind]);

export const keys = {
  /** JSON: the chain's configuration (dev or a geth genesis), written once. */
  config: p('config'),
  /** Hash of the head (newest sealed) block. */
  head: p('head'),
  /** number (u64) -> block hash */
  canonical: (n: bigint) => concat(p('canonical'), u64(n)),
  /** block hash -> RLP of the full block */
  block: (hash: Uint8Array) => concat(p('block'), hash),
  /** block hash -> RLP list of the block's encoded receipts */
  receipts: (hash: Uint8Array) => concat(p('receipts'), hash),
  /** block hash -> senders of the block's transactions, 20 bytes each */
  senders: (hash: Uint8Array) => concat(p('senders'), hash),
  /** tx hash -> block hash (32) + index (u64) */
  txIndex: (hash: Uint8Array) => concat(p('txIndex'), hash),
  /** address -> RLP account (latest state only; history lives in the trie) */
  account: (addr: Uint8Array) => concat(p('account'), addr),
  /** address + slot -> value with leading zeros stripped (latest state only) */
  storage: (addr: Uint8Array, slot: Uint8Array) => concat(p('storage'), addr, slot),
  storagePrefix: (addr: Uint8Array) => concat(p('storage'), addr),
  /** code hash -> bytecode */
  code: (hash: Uint8Array) => concat(p('code'), hash),
  /** node hash -> RLP node of any state or storage trie, for every root ever sealed */
  trieNode: (hash: Uint8Array) => concat(p('trieNode'), hash),
};
