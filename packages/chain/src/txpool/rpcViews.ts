/**
 * geth's txpool_* result shapes, built from the pool's views. The RPC layer supplies how one
 * transaction is rendered (its eth_getTransactionByHash object with blockHash, blockNumber and
 * transactionIndex null), so these helpers stay free of RPC formatting.
 *
 *   txpool_status       { pending: "0x2", queued: "0x1" }
 *   txpool_content      { pending: { <Checksummed>: { "<nonce decimal>": tx } }, queued: { ... } }
 *   txpool_contentFrom  { pending: { "<nonce decimal>": tx }, queued: { ... } }
 *   txpool_inspect      as content, each tx as "<To>: <value> wei + <gas> gas × <price> wei"
 *                       ("contract creation: ..." without a recipient; price = max fee per gas)
 */
import { toChecksumAddress } from '@ethereumjs/util';
import type { Hex, PoolTransaction, TxPool } from './types.js';

type ByNonce<T> = Record<string, T>;

/** txpool_status. */
export function txpoolStatus(pool: TxPool): { pending: Hex; queued: Hex } {
  const { pending, queued } = pool.status();
  return { pending: `0x${pending.toString(16)}`, queued: `0x${queued.toString(16)}` };
}

/** txpool_content with each transaction rendered by `render`. */
export function txpoolContent<T>(
  pool: TxPool,
  render: (tx: PoolTransaction) => T,
): { pending: Record<string, ByNonce<T>>; queued: Record<string, ByNonce<T>> } {
  const { pending, queued } = pool.content();
  const bySender = (m: Map<Hex, Map<bigint, PoolTransaction>>): Record<string, ByNonce<T>> => {
    const out: Record<string, ByNonce<T>> = {};
    for (const [sender, txs] of m) out[toChecksumAddress(sender)] = byNonce(txs, render);
    return out;
  };
  return { pending: bySender(pending), queued: bySender(queued) };
}

/** txpool_contentFrom(address) with each transaction rendered by `render`. */
export function txpoolContentFrom<T>(
  pool: TxPool,
  address: Hex,
  render: (tx: PoolTransaction) => T,
): { pending: ByNonce<T>; queued: ByNonce<T> } {
  const key = address.toLowerCase() as Hex;
  const { pending, queued } = pool.content();
  return {
    pending: byNonce(pending.get(key) ?? new Map(), render),
    queued: byNonce(queued.get(key) ?? new Map(), render),
  };
}

/** txpool_inspect. */
export function txpoolInspect(pool: TxPool): {
  pending: Record<string, ByNonce<string>>;
  queued: Record<string, ByNonce<string>>;
} {
  return txpoolContent(pool, inspectSummary);
}

/** geth's one-line summary of a pooled transaction (txpool_inspect). */
export function inspectSummary(ptx: PoolTransaction): string {
  const { tx } = ptx;
  const amounts = `${tx.value} wei + ${ptx.gasLimit} gas × ${ptx.maxFeePerGas} wei`;
  return tx.to === undefined
    ? `contract creation: ${amounts}`
    : `${toChecksumAddress(tx.to.toString())}: ${amounts}`;
}

function byNonce<T>(txs: Map<bigint, PoolTransaction>, render: (tx: PoolTransaction) => T): ByNonce<T> {
  const out: ByNonce<T> = {};
  for (const [nonce, ptx] of txs) out[nonce.toString()] = render(ptx);
  return out;
}
