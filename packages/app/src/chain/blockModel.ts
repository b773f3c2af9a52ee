/**
 * The picture of the block being built: ten flashblock slots (2 s blocks, 200 ms flashblocks),
 * each with the transactions and gas it added. Pure: fed snapshots of the pending block (from
 * the newFlashblocks subscription or from polling `eth_getBlockByNumber('pending')`).
 */

export const SLOTS = 10;

export interface PendingSnapshot {
  /** The sealed block this one builds on: a new parent means a new block. */
  parentHash: string;
  /** The number of the block being built, when known. */
  number?: bigint;
  txCount: number;
  gasUsed: bigint;
  gasLimit: bigint;
  /** The flashblock index (1..n), when the source gives it; else derived from time. */
  index?: number;
}

export interface Slot {
  txs: number;
  gas: bigint;
  /** A flashblock was seen for this slot. */
  seen: boolean;
}

export interface BuildingBlock {
  parentHash: string;
  number?: bigint;
  startedAt: number;
  slots: Slot[];
  txCount: number;
  gasUsed: bigint;
  gasLimit: bigint;
  /** The slot of the latest flashblock. */
  current: number;
}

const emptySlots = (): Slot[] => Array.from({ length: SLOTS }, () => ({ txs: 0, gas: 0n, seen: false }));

export function startBlock(s: PendingSnapshot, now: number): BuildingBlock {
  const block: BuildingBlock = {
    parentHash: s.parentHash,
    number: s.number,
    startedAt: now,
    slots: emptySlots(),
    txCount: 0,
    gasUsed: 0n,
    gasLimit: s.gasLimit,
    current: 0,
  };
  return applySnapshot(block, s, now);
}

/** Folds one snapshot in; returns a new block (a new one when the parent changed). */
export function applySnapshot(
  block: BuildingBlock | undefined,
  s: PendingSnapshot,
  now: number,
  intervalMs = 200,
): BuildingBlock {
  if (!block || block.parentHash !== s.parentHash) return startBlock(s, now);
  const byTime = Math.floor((now - block.startedAt) / intervalMs);
  // Index 0 opens the block with no transactions; 1..n are the flashblocks proper.
  const raw = s.index !== undefined ? s.index - 1 : byTime;
  const slot = Math.max(block.current, Math.min(SLOTS - 1, Math.max(0, raw)));
  const txs = Math.max(0, s.txCount - block.txCount);
  const gas = s.gasUsed > block.gasUsed ? s.gasUsed - block.gasUsed : 0n;
  // Slots up to this one have elapsed, whether or not a flashblock message arrived for each.
  const slots = block.slots.map((x, i) =>
    i === slot
      ? { txs: x.txs + txs, gas: x.gas + gas, seen: true }
      : i < slot && !x.seen
        ? { ...x, seen: true }
        : x,
  );
  return {
    ...block,
    number: s.number ?? block.number,
    slots,
    txCount: Math.max(block.txCount, s.txCount),
    gasUsed: s.gasUsed > block.gasUsed ? s.gasUsed : block.gasUsed,
    gasLimit: s.gasLimit || block.gasLimit,
    current: slot,
  };
}

/** A pending block object of JSON-RPC as a snapshot; undefined when it is not one. */
export function snapshotOf(raw: unknown): PendingSnapshot | undefined {
  if (!raw || typeof raw !== 'object') return undefined;
  const b = raw as Record<string, unknown>;
  if (typeof b.parentHash !== 'string') return undefined;
  const hex = (v: unknown) => (typeof v === 'string' && v.startsWith('0x') ? BigInt(v) : undefined);
  const index = typeof b.index === 'number' ? b.index : hex(b.index);
  return {
    parentHash: b.parentHash,
    number: hex(b.number),
    txCount: Array.isArray(b.transactions) ? b.transactions.length : 0,
    gasUsed: hex(b.gasUsed) ?? 0n,
    gasLimit: hex(b.gasLimit) ?? 0n,
    index: index === undefined ? undefined : Number(index),
  };
}
