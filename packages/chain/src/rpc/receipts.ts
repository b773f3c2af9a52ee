/** A transaction's receipt as eth_getTransactionReceipt answers it (sealed or pre-confirmed). */
import type { StoredReceipt } from '../storage/receiptCodec.js';
import { type BlockView, pendingShape, type TxFound } from './chainReads.js';
import type { RpcContext } from './context.js';
import { formatReceipt } from './format.js';

export function blobGasPriceOf(view: BlockView): bigint {
  const h = view.block.header;
  return h.common.isActivatedEIP(4844) ? h.getBlobGasPrice() : 1n;
}

/**
 * Pre-confirmed: blockHash the zero hash (null with --pending-nulls), blockNumber the block
 * being built, transactionIndex its index in the whole block (design, "`pending`").
 */
export async function receiptOf(c: RpcContext, f: TxFound): Promise<Record<string, unknown>> {
  return receiptIn(c, f.view, await f.view.receipts(), f.index);
}

/**
 * receiptOf where the view's receipts are at hand (the pending block's): nothing awaited.
 * `blobGasPrice`: the view's, when the caller formats several of its receipts.
 */
export function receiptIn(
  c: RpcContext,
  view: BlockView,
  receipts: readonly StoredReceipt[],
  index: number,
  blobGasPrice = blobGasPriceOf(view),
): Record<string, unknown> {
  return formatReceipt(view.block, receipts, index, view.senders[index], {
    pending: view.pending ? pendingShape(c) : undefined,
    blobGasPrice,
  });
}
