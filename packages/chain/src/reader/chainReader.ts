/**
 * ChainReader: the one read path of the RPC. Blocks, states, transactions and code by tag, hash
 * or number, whatever holds them: the pending snapshot (the block being built), the sealed
 * blocks whose batch is not on disk yet (ChainStore's overlay), LevelDB, and past tries. RPC
 * code never sees storage keys or which of these answered.
 *
 *   rpc ─> ChainReader ─> pending()          the builder's last flashblock
 *                      ─> blockAt / stateAt  state/resolve (the one place tags become state)
 *                      ─> BlockReader        overlay, then LevelDB
 *
 * Built once in node.ts (LocalChainReader). A reader that falls back to a remote node (forking)
 * or follows another sequencer implements this same interface.
 */
import type { Block, BlockHeader } from '@ethereumjs/block';
import type { TypedTransaction } from '@ethereumjs/tx';
import type { BlockTag, Resolved } from '../state/resolve.js';
import type { StateReader } from '../state/stateReader.js';
import type { TrieStateReader } from '../state/trieState.js';
import type { StoredReceipt } from '../storage/receiptCodec.js';

/** A pre-confirmed transaction of the pending block, as reads need it. */
export interface PendingTxView {
  hash: Uint8Array;
  sender: Uint8Array;
  receipt: StoredReceipt;
}

/**
 * The block being built as of its last flashblock (the builder's PendingSnapshot). Immutable:
 * a reader holds one snapshot for a whole request.
 */
export interface PendingBlockView {
  /** Index of the last published flashblock (0: the block was just opened). */
  index: number;
  number: bigint;
  /** The partial block's header: cumulative gasUsed, roots and bloom as of the last flashblock. */
  header: BlockHeader;
  /** Header plus the pre-confirmed transactions. */
  block: Block;
  /** State after the last flashblock. */
  state: StateReader;
  txs: readonly PendingTxView[];
  baseFee: bigint;
}

/** A block with what block methods show of it: senders, receipts (read on demand). */
export interface BlockView {
  block: Block;
  senders: Uint8Array[];
  receipts: () => Promise<StoredReceipt[]>;
  /** The pending block (no hash, no size). */
  pending: boolean;
}

/** A transaction and where it is. */
export interface TxFound {
  view: BlockView;
  index: number;
  tx: TypedTransaction;
}

export interface ChainReader {
  /** The latest sealed block. */
  head(): Block;
  /** Hash of block 0 (EIP-2124 fork ids start from it). */
  genesisHash(): Uint8Array;
  /** The block being built, as of its last flashblock. */
  pending(): PendingBlockView;
  /** A block by tag, number or hash; undefined beyond the head or for an unknown hash. */
  blockAt(tag: BlockTag): Promise<BlockView | undefined>;
  /** A sealed block by number (canonical), without its senders. */
  blockByNumber(n: bigint): Promise<Block | undefined>;
  /** A sealed block's header by number, without decoding its transactions. */
  headerByNumber(n: bigint): Promise<BlockHeader | undefined>;
  /** A sealed block as block methods show it. */
  sealedView(block: Block): Promise<BlockView>;
  /** The state at a tag, number or hash; undefined beyond the head or for an unknown hash. */
  stateAt(tag: BlockTag): Promise<Resolved | undefined>;
  /**
   * A transaction by hash: sealed (canonical) first, then the pending block, then (a fork) the
   * remote's blocks below the fork block. `pooled`: the pool holds it, so only the pending block
   * is looked at (the pool lets a transaction go as a flashblock pre-confirms it, so one it holds
   * is in no sealed block, and it is this node's own: none of a remote's).
   */
  findTransaction(hash: Uint8Array, opts?: { pooled?: boolean }): Promise<TxFound | undefined>;
  /** The state trie at a sealed block's root, for proofs (eth_getProof). */
  trieAt(stateRoot: Uint8Array): TrieStateReader;
  /** Bytecode by its keccak256. */
  code(codeHash: Uint8Array): Promise<Uint8Array | undefined>;
  /** A sealed block's receipts as stored (consensus encoding). */
  rawReceipts(blockHash: Uint8Array): Promise<Uint8Array[]>;
  /** A sealed block's RLP size. */
  sizeOf(block: Block): number;
}
