/**
 * Shared reads of the RPC handlers: tags to blocks and states (through state/resolve), the
 * pending block as a Block object, and transaction lookups (sealed, then pre-confirmed).
 */
import type { Block } from '@ethereumjs/block';
import type { TypedTransaction } from '@ethereumjs/tx';
import type { PendingSnapshot } from '../builder/pendingBlock.js';
import { bytesToHex, equalBytes } from '../primitives/hex.js';
import { type BlockTag, type Resolved, type ResolveDeps, resolve, resolveBlock } from '../state/resolve.js';
import type { StoredReceipt } from '../storage/receiptCodec.js';
import { keys } from '../storage/keys.js';
import type { RpcContext } from './context.js';
import type { PendingShape } from './format.js';
import { headerNotFound } from './errors.js';

const depsCache = new WeakMap<RpcContext, ResolveDeps>();

export function deps(c: RpcContext): ResolveDeps {
  const cached = depsCache.get(c);
  if (cached) return cached;
  const { chain } = c;
  const d: ResolveDeps = {
    blocks: chain.blocks,
    flat: chain.flat,
    nodes: chain.nodes,
    code: (h) => chain.store.get(keys.code(h)),
    pending: () => c.producer.pending,
  };
  depsCache.set(c, d);
  return d;
}

/** How this node shows the block being built (`--pending-nulls`). */
export function pendingShape(c: RpcContext): PendingShape {
  return c.pendingNulls ? 'nulls' : 'base';
}

/** State methods: a tag beyond the head is "header not found". */
export async function stateAt(c: RpcContext, tag: BlockTag): Promise<Resolved> {
  const r = await resolve(deps(c), tag);
  if (!r) throw headerNotFound();
  return r;
}

export interface BlockView {
  block: Block;
  senders: Uint8Array[];
  receipts: () => Promise<StoredReceipt[]>;
  pending: boolean;
}

/** The pending block as a Block (transactions pre-confirmed so far, cumulative gas). */
export function pendingBlock(c: RpcContext): BlockView {
  // The builder's snapshot: header with cumulative gas, roots and bloom, as of the last flashblock.
  return pendingView(c.producer.pending);
}

function pendingView(p: PendingSnapshot): BlockView {
  return {
    block: p.block,
    senders: p.txs.map((t) => t.sender),
    receipts: async () => p.txs.map((t) => t.receipt),
    pending: true,
  };
}

/** Block methods: null (undefined) beyond the head or for an unknown hash. */
export async function blockAt(c: RpcContext, tag: BlockTag): Promise<BlockView | undefined> {
  if ('tag' in tag && tag.tag === 'pending') return pendingBlock(c);
  const block = await resolveBlock(deps(c), tag);
  if (!block) return undefined;
  return sealedView(c, block);
}

export async function sealedView(c: RpcContext, block: Block): Promise<BlockView> {
  const senders = block.transactions.length ? await c.chain.blocks.sendersOf(block.hash()) : [];
  return { block, senders, receipts: () => c.chain.blocks.receiptsOf(block.hash()), pending: false };
}

export interface TxFound {
  view: BlockView;
  index: number;
  tx: TypedTransaction;
}

const pendingIndexes = new WeakMap<PendingSnapshot, Map<string, number>>();

/** Index of a pre-confirmed transaction in a pending snapshot (built once per snapshot). */
function pendingIndexOf(p: PendingSnapshot, hash: Uint8Array): number | undefined {
  let index = pendingIndexes.get(p);
  if (!index) {
    index = new Map(p.txs.map((t, i) => [bytesToHex(t.hash), i]));
    pendingIndexes.set(p, index);
  }
  return index.get(bytesToHex(hash));
}

/** A transaction by hash: sealed first, then the pending block. */
export async function findTx(c: RpcContext, hash: Uint8Array): Promise<TxFound | undefined> {
  // The snapshot is taken before the sealed lookup: a seal that lands during the lookup moves the
  // head and the snapshot together, after its block is stored, so the transaction is found in one
  // of the two (never in neither).
  const p = c.producer.pending;
  const loc = await c.chain.blocks.txLocation(hash);
  if (loc) {
    const block = await c.chain.blocks.byHash(loc.blockHash);
    const canon = block && (await c.chain.blocks.hashOf(block.header.number));
    if (block && canon && equalBytes(canon, block.hash())) {
      const view = await sealedView(c, block);
      return { view, index: loc.index, tx: block.transactions[loc.index] };
    }
  }
  const i = pendingIndexOf(p, hash);
  if (i !== undefined) {
    const view = pendingView(p);
    return { view, index: i, tx: view.block.transactions[i] };
  }
  return undefined;
}

export const hexKey = bytesToHex;
