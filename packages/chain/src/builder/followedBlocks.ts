/**
 * A follower's blocks, built with the builder's own PendingBlock from what its sequencer sent:
 * each flashblock's transactions are executed on the follower's state and published only if the
 * partial block they make hashes to the flashblock's `block_hash` (which commits to the state
 * root, receipts root, bloom and gas used); a sealed block is sealed from the same pending block
 * once its transactions are in and its hash is the sealed block's. Nothing the follower did not
 * execute itself is ever shown. Consumer: builder/blockProducer.ts (`applyFlashblock`,
 * `importSealed`).
 */
import type { Block } from '@ethereumjs/block';
import type { TypedTransaction } from '@ethereumjs/tx';
import type { ChainContext } from '../execution/chainContext.js';
import { equalBytes } from '../primitives/hex.js';
import type { StateTrie } from '../state/trieAdapter.js';
import { PendingBlock } from './pendingBlock.js';

/** The header fields a block's first flashblock (index 0) gives (Base's `base`). */
export interface FollowedBase {
  parentHash: Uint8Array;
  number: bigint;
  timestamp: bigint;
  gasLimit: bigint;
  baseFee: bigint;
  coinbase: Uint8Array;
  prevRandao: Uint8Array;
  extraData: Uint8Array;
}

/** A transaction as the follower decoded it (sender recovered off the event loop). */
export interface FollowedTx {
  tx: TypedTransaction;
  raw: Uint8Array;
  hash: Uint8Array;
  sender: Uint8Array;
}

/** One flashblock of the sequencer's stream, decoded (follower/flashblockMessage.ts). */
export interface FollowedFlashblock {
  payloadId: string;
  index: number;
  /** The block it belongs to (`base.block_number`, else `metadata.block_number`). */
  number: bigint;
  /** Index 0 only. */
  base?: FollowedBase;
  /** The transactions this flashblock added. */
  txs: FollowedTx[];
  /** The partial block's state root after it (checked before it is published). */
  stateRoot: Uint8Array;
  /** The partial block's hash after it (header with cumulative roots, bloom and gas). */
  blockHash: Uint8Array;
}

/**
 * What became of a flashblock: `applied` (pending shows it), `duplicate` (already applied),
 * `unknown-parent` (its block is not on this follower's head yet: keep it for later),
 * `contradicted` (re-executing it did not give its hash, or one before it was dropped: dropped),
 * `gap` (one before it was missed: its block is left to the sealed block).
 */
export type FlashblockVerdict =
  | { kind: 'applied' | 'duplicate' | 'unknown-parent' | 'gap' }
  | { kind: 'contradicted'; reason: string };

/** The followed block being built: its header's origin and how far its flashblocks agreed. */
export interface FollowedState {
  base: FollowedBase;
  payloadId: string;
  /** Why its later flashblocks are dropped (one was contradicted or missed). */
  broken?: string;
  /** Transactions in the pending block after each applied flashblock, in order. */
  marks: number[];
}

/** The block a followed flashblock 0 opens: the builder's PendingBlock with the sequencer's header. */
export function openFollowed(
  ctx: ChainContext,
  parent: Block,
  base: FollowedBase,
  warm?: StateTrie,
): PendingBlock {
  return new PendingBlock(ctx, parent, base.timestamp, base.extraData, warm, {
    gasLimit: base.gasLimit,
    baseFee: base.baseFee,
    coinbase: base.coinbase,
    prevRandao: base.prevRandao,
  });
}

/** The header fields of a sealed block, as the `base` of its first flashblock would give them. */
export function baseOf(block: Block): FollowedBase {
  const h = block.header;
  return {
    parentHash: h.parentHash,
    number: h.number,
    timestamp: h.timestamp,
    gasLimit: h.gasLimit,
    baseFee: h.baseFeePerGas ?? 0n,
    coinbase: h.coinbase.bytes,
    prevRandao: h.mixHash,
    extraData: h.extraData,
  };
}

/** Whether two bases open the same header. */
export function sameBase(a: FollowedBase, b: FollowedBase): boolean {
  return (
    equalBytes(a.parentHash, b.parentHash) &&
    a.number === b.number &&
    a.timestamp === b.timestamp &&
    a.gasLimit === b.gasLimit &&
    a.baseFee === b.baseFee &&
    equalBytes(a.coinbase, b.coinbase) &&
    equalBytes(a.prevRandao, b.prevRandao) &&
    equalBytes(a.extraData, b.extraData)
  );
}

/**
 * Executes `txs` into the flashblock being built. Returns why one could not go in (the working
 * layer is then discarded), or undefined.
 */
export async function addAll(b: PendingBlock, txs: readonly FollowedTx[]): Promise<string | undefined> {
  for (const t of txs) {
    const r = await b.add(t.tx, { raw: t.raw, sender: t.sender, hash: t.hash });
    if (!r.ok) {
      b.discard();
      return `transaction ${Buffer.from(t.hash).toString('hex')} did not execute: ${r.reason}`;
    }
  }
  return undefined;
}

/**
 * How many of the pending block's transactions the sealed block holds at the same positions,
 * and how many of its applied flashblocks that leaves standing (a flashblock stands only if all
 * its transactions do).
 */
export function agreement(
  pending: readonly { hash: Uint8Array }[],
  sealed: readonly FollowedTx[],
  marks: readonly number[],
): { same: number; standing: number } {
  let same = 0;
  while (same < pending.length && same < sealed.length && equalBytes(pending[same].hash, sealed[same].hash))
    same++;
  let standing = 0;
  while (standing < marks.length && marks[standing] <= same) standing++;
  return { same, standing };
}
