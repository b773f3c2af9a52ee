/**
 * The RPC handlers' reads, over the node's ChainReader (reader/chainReader.ts): what the
 * reader answers, with the RPC's own error where the spec wants one.
 */
import type { BlockView, TxFound } from '../reader/chainReader.js';
import type { BlockTag, Resolved } from '../state/resolve.js';
import { bytesToHex } from '../primitives/hex.js';
import type { RpcContext } from './context.js';
import type { PendingShape } from './format.js';
import { headerNotFound } from './errors.js';

export type { BlockView, TxFound } from '../reader/chainReader.js';

/** How this node shows the block being built (`--pending-nulls`). */
export function pendingShape(c: RpcContext): PendingShape {
  return c.pendingNulls ? 'nulls' : 'base';
}

/** State methods: a tag beyond the head is "header not found". */
export async function stateAt(c: RpcContext, tag: BlockTag): Promise<Resolved> {
  const r = await c.reader.stateAt(tag);
  if (!r) throw headerNotFound();
  return r;
}

/** Block methods: null (undefined) beyond the head or for an unknown hash. */
export function blockAt(c: RpcContext, tag: BlockTag): Promise<BlockView | undefined> {
  return c.reader.blockAt(tag);
}

/** A transaction by hash: sealed first, then the pending block. */
export function findTx(c: RpcContext, hash: Uint8Array): Promise<TxFound | undefined> {
  return c.reader.findTransaction(hash, { pooled: c.pool.get(bytesToHex(hash)) !== undefined });
}
